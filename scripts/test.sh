#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test: Swift unit tests, the shim's C tests (built with warnings as errors), the
# config parity of the two parsers, and the end-to-end tests with real libpam, pamtester,
# pam_unix and libfprint's virtual sensor. Root on a fresh Debian 12; installs what it needs.
source "$(dirname "$0")/lib.sh"
ensure_packages $BUILD_PACKAGES $TEST_PACKAGES
cd "$ROOT"

LOG=$(mktemp /tmp/touchauth-test.XXXXXX)
trap 'rm -f "$LOG" "$LOG.swift"' EXIT
NAMES=() PASSES=() FAILS=() ASSERTS=() TIMES=() PROBLEMS=()

# suite NAME MIN COMMAND...: runs one suite. Its output must hold a line "N passed, M failed"
# (the last such line counts: N checks passed, M failed) and may hold "(A assertions)" when its
# checks are scenarios of several assertions (else A = N + M). The suite fails, without stopping
# the run, when the command exits non-zero, prints no such line, reports a failure, or passes
# fewer than MIN checks; a failed suite counts at least one failure in the total.
# MIN: the suite's count in the last full run less 5 % (rounded down), so that one check more,
# or one skipped, does not fail it but a lost block does; where each check is a whole target
# (the fuzz runners), MIN is the count itself. Raise MIN when a suite gains checks for good.
suite() {
    local name=$1 min=$2; shift 2
    run_suite "$name" "$min" counted "$@"
}

# single NAME COMMAND...: a suite that is one check (the build, clang-format): it passes when the
# command exits 0; its output is not read.
single() {
    local name=$1; shift
    run_suite "$name" 1 single "$@"
}

run_suite() {
    local name=$1 min=$2 kind=$3; shift 3
    echo; echo "=== $name"
    local start rc
    start=$(date +%s%N)
    set +e
    "$@" 2>&1 | tee "$LOG"
    rc=${PIPESTATUS[0]}
    set -e
    local ms=$((($(date +%s%N) - start) / 1000000))
    local passed=0 failed=0 asserts="" line problems=()
    if [ "$kind" = single ]; then
        if [ "$rc" -eq 0 ]; then passed=1; else failed=1; fi
    else
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$LOG" | tail -n 1 || true)
        asserts=$(sed -n 's/^(\([0-9][0-9]*\) assertions.*)$/\1/p' "$LOG" | tail -n 1)
        if [ -z "$line" ]; then
            problems+=("no 'N passed, M failed' line")
        else
            passed=${line%% passed*}; failed=${line#*, }; failed=${failed%% failed*}
            if [ "$failed" -eq 0 ] && [ "$passed" -lt "$min" ]; then
                problems+=("$passed passed, expected at least $min")
            elif [ "$failed" -gt 0 ] && [ $((passed + failed)) -lt "$min" ]; then
                problems+=("$((passed + failed)) checks ran, expected at least $min")
            fi
            if [ "$failed" -gt 0 ]; then problems+=("$failed failed"); fi
        fi
    fi
    if [ "$rc" -ne 0 ]; then problems+=("exit status $rc"); fi
    asserts=${asserts:-$((passed + failed))}
    if [ ${#problems[@]} -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
    local problem="" p
    for p in "${problems[@]}"; do problem+="${problem:+; }$p"; done
    if [ -n "$problem" ]; then echo "suite $name: $problem"; fi
    NAMES+=("$name") PASSES+=("$passed") FAILS+=("$failed") ASSERTS+=("$asserts")
    TIMES+=("$((ms / 1000)).$((ms % 1000 / 100))") PROBLEMS+=("$problem")
}

# swift test's own verdict: "Test run with N tests ... passed" and exit 0, else failed (the
# failing tests counted from their "Test ... failed after" lines, at least one).
swift_unit_tests() {
    set +e
    "$SWIFT" test 2>&1 | grep -v 'prohibited flag' | tee "$LOG.swift"
    local rc=${PIPESTATUS[0]}
    set -e
    local run n f
    run=$(grep -E 'Test run with [0-9]+ tests? ' "$LOG.swift" | tail -n 1 || true)
    if [ -z "$run" ]; then
        echo "swift test printed no 'Test run with N tests' line (exit status $rc)"
        echo "0 passed, 1 failed"
        return 1
    fi
    n=$(echo "$run" | sed 's/.*Test run with \([0-9][0-9]*\) test.*/\1/')
    if [ "$rc" -eq 0 ] && echo "$run" | grep -q ' passed after '; then
        echo "$n passed, 0 failed"
        return 0
    fi
    f=$(grep -E 'Test .* failed after ' "$LOG.swift" | grep -vc 'Test run with' || true)
    [ "$f" -ge 1 ] || f=1
    echo "$((n > f ? n - f : 0)) passed, $f failed"
    return 1
}

single "build (release helper, module with -Werror)" "$ROOT/scripts/build.sh"
suite "Swift unit tests (core, the scan loop)" 110 swift_unit_tests
single "C formatting (clang-format, pam/.clang-format)" make -s -C pam format-check
suite "license: every source file carries its SPDX line (Apache-2.0, LICENSE)" 149 tests/spdx.sh
suite "C unit tests (reply parser, helper spawn, terminal, held signals, silent lockers, exported symbols, config file checks)" 256 make -s -C pam check
suite "config files: the shim's dump" 72 pam/tests/check_config_files.sh pam/tests/config_dump
suite "config files: the helper's dump" 72 pam/tests/check_config_files.sh "$HELPER_BIN" config-dump --config
suite "config file checks (owner, mode, links, size): the helper's dump" 13 sh pam/tests/test_config_files_perms.sh "$HELPER_BIN" config-dump --config
suite "e2e: faulty helpers never authenticate" 82 pam/tests/e2e_fake_helpers.sh
suite "e2e: security (user names, links and owners, faults, socket mode, valgrind)" 133 tests/e2e/security.sh
suite "e2e: unprivileged callers (real sudo vs the caller's env, setuid helper for screen lockers)" 66 tests/e2e/unprivileged.sh
suite "fuzz: the shim's reply and option parsers (libFuzzer, ASan+UBSan)" 2 pam/fuzz/run.sh
suite "fuzz: the helper's config, request and state decoders (Swift libFuzzer, ASan)" 3 tests/fuzz/run.sh
suite "e2e: core flow (virtual sensor, pam_unix, pamtester)" 44 tests/e2e/core_flow.sh
suite "e2e: strikes, lockout, trust rules, state store (acct_mgmt, parallel, kill -9)" 92 tests/e2e/lockout.sh
suite "e2e: no free wrong finger on a slow disk (fsync over a second, Enter after each finger)" 12 tests/e2e/slow_disk.sh
suite "e2e: terminal keys in real sudo and su (tmux, unshare), signals at the prompt, skips, lid" 114 tests/e2e/terminal.sh
suite "e2e: doas for real (tmux, an overlay over /etc): finger, Enter, typing, Ctrl-C, lockout, no terminal" 22 tests/e2e/clients_doas.sh
suite "e2e: pkexec and the real polkitd (private bus, fake logind; text agent, a dialog-like agent, remote, no logind)" 86 tests/e2e/clients_polkit.sh
suite "e2e: screen lockers for real (vlock; i3lock, xsecurelock on Xvfb in a fake local session; the setuid helper or not)" 58 tests/e2e/clients_lockers.sh
suite "e2e: LightDM and its GTK greeter on Xvfb (finger, wrong fingers, locked user, console in front)" 25 tests/e2e/clients_lightdm.sh
suite "e2e: GDM's two stacks as its session workers run them (finger, password while the finger waits, wrong fingers, locked, remote, no greeter)" 43 tests/e2e/clients_gdm.sh
suite "e2e: presence (fake logind sessions, no terminal, no display, real su)" 55 tests/e2e/presence.sh
suite "e2e: network logins through real sshd on loopback (password, keyboard-interactive, key after a failed password, MaxAuthTries)" 48 tests/e2e/sshd.sh
suite "e2e: the touchauth command (enroll, list, delete, verify, enable/disable, doctor and its summary line; match-on-chip; --version everywhere; translated output; completions)" 131 tests/e2e/cli.sh
suite "e2e: scripts/demo.sh tells the story its headings say (each step's outcome)" 13 tests/e2e/demo.sh
suite "e2e: fprintd interop both ways (real fprintd, private bus, dbusmock polkit)" 13 tests/e2e/fprintd.sh
suite "e2e: install, pam-auth-update, real /etc/pam.d, translations, man, uninstall, the .deb built by dpkg-buildpackage" 172 tests/e2e/install.sh

# One line per suite (checks passed and failed, assertions, wall time), then the total.
echo
printf '%7s %7s %10s %8s  %s\n' passed failed assertions seconds suite
total_passed=0 total_failed=0 total_asserts=0 failed_suites=()
for i in "${!NAMES[@]}"; do
    printf '%7d %7d %10d %8s  %s\n' "${PASSES[i]}" "${FAILS[i]}" "${ASSERTS[i]}" "${TIMES[i]}" "${NAMES[i]}"
    total_passed=$((total_passed + PASSES[i])); total_failed=$((total_failed + FAILS[i]))
    total_asserts=$((total_asserts + ASSERTS[i]))
    if [ -n "${PROBLEMS[i]}" ]; then failed_suites+=("${NAMES[i]}: ${PROBLEMS[i]}"); fi
done
for f in "${failed_suites[@]}"; do echo "FAILED suite $f"; done
echo "($total_asserts assertions in all)"
echo "total: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ] && [ ${#failed_suites[@]} -eq 0 ]
