#!/usr/bin/env bash
# Runs every test: Swift unit tests, the shim's C tests (built with warnings as errors), the
# config parity of the two parsers, and the end-to-end tests with real libpam, pamtester,
# pam_unix and libfprint's virtual sensor. Root on a fresh Debian 12; installs what it needs.
source "$(dirname "$0")/lib.sh"
ensure_packages $BUILD_PACKAGES $TEST_PACKAGES
cd "$ROOT"

TOTAL_PASSED=0
TOTAL_FAILED=0
FAILED_SUITES=()
LOG=$(mktemp /tmp/touchauth-test.XXXXXX)
trap 'rm -f "$LOG"' EXIT

# suite NAME COMMAND...: runs one suite, adds up its "N passed, M failed" line (or counts the
# suite as one test when it prints none), and remembers a failure without stopping.
suite() {
    local name=$1; shift
    echo; echo "=== $name"
    set +e
    "$@" 2>&1 | tee "$LOG"
    local rc=${PIPESTATUS[0]}
    set -e
    local line passed=0 failed=0
    line=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$LOG" | tail -n 1 || true)
    if [ -n "$line" ]; then
        passed=${line%% passed*}; failed=${line#*, }; failed=${failed%% failed*}
    elif [ "$rc" -eq 0 ]; then passed=1
    fi
    [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
    TOTAL_PASSED=$((TOTAL_PASSED + passed)); TOTAL_FAILED=$((TOTAL_FAILED + failed))
    [ "$rc" -eq 0 ] || FAILED_SUITES+=("$name")
}

swift_unit_tests() {
    set +e
    "$SWIFT" test 2>&1 | grep -v 'prohibited flag' | tee "$LOG.swift"
    local rc=${PIPESTATUS[0]}
    set -e
    local n
    n=$(grep -Eo 'Test run with [0-9]+ tests' "$LOG.swift" | grep -Eo '[0-9]+' || echo 0)
    if [ "$rc" -eq 0 ]; then echo "$n passed, 0 failed"; else echo "0 passed, 1 failed"; fi
    rm -f "$LOG.swift"
    return "$rc"
}

suite "build (release helper, module with -Werror)" "$ROOT/scripts/build.sh"
suite "Swift unit tests (core)" swift_unit_tests
suite "C formatting (clang-format, pam/.clang-format)" make -s -C pam format-check
suite "C unit tests (protocol parser, exported symbols)" make -s -C pam check
suite "config files: the shim's parser" pam/tests/check_config_files.sh pam/tests/config_dump
suite "config files: the helper's parser" pam/tests/check_config_files.sh "$HELPER_BIN" config-dump --config
suite "e2e: faulty helpers never authenticate" pam/tests/e2e_fake_helpers.sh
suite "e2e: security (user names, links and owners, faults, socket mode, valgrind)" tests/e2e/security.sh
suite "e2e: unprivileged callers (real sudo vs the caller's env, setuid helper for screen lockers)" tests/e2e/unprivileged.sh
suite "fuzz: the shim's reply and option parsers (libFuzzer, ASan+UBSan)" pam/fuzz/run.sh
suite "fuzz: the helper's config, request and state decoders (Swift libFuzzer, ASan)" tests/fuzz/run.sh
suite "e2e: core flow (virtual sensor, pam_unix, pamtester)" tests/e2e/core_flow.sh
suite "e2e: strikes, lockout, trust rules, state store (acct_mgmt, parallel, kill -9)" tests/e2e/lockout.sh
suite "e2e: no free wrong finger on a slow disk (fsync over a second, Enter after each finger)" tests/e2e/slow_disk.sh
suite "e2e: terminal keys in real sudo and su (tmux, unshare), skips, lid" tests/e2e/terminal.sh
suite "e2e: presence (fake logind sessions, no terminal, no display, real su)" tests/e2e/presence.sh
suite "e2e: network logins through real sshd on loopback (password, keyboard-interactive, key after a failed password)" tests/e2e/sshd.sh
suite "e2e: the touchauth command (enroll, list, delete, verify, enable/disable, doctor; match-on-chip)" tests/e2e/cli.sh
suite "e2e: fprintd interop both ways (real fprintd, private bus, dbusmock polkit)" tests/e2e/fprintd.sh
suite "e2e: install, pam-auth-update, real /etc/pam.d, translations, man, uninstall, .deb" tests/e2e/install.sh

echo
if [ ${#FAILED_SUITES[@]} -ne 0 ]; then
    echo "failed suites: ${FAILED_SUITES[*]}"
fi
echo "total: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" -eq 0 ] && [ ${#FAILED_SUITES[@]} -eq 0 ]
