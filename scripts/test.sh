#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the tests: Swift unit tests, the shim's C tests (built with warnings as errors), the
# config parity of the two parsers, and the end-to-end tests with real libpam, pamtester,
# pam_unix and libfprint's virtual sensor. Root on a fresh Debian 12 or 13; installs what it needs.
# scripts/test.sh --help says how to run some suites, or some checks of one.
usage() {
    cat <<'EOF'
usage: scripts/test.sh [NAME[:REGEX]...] [--filter REGEX]
       scripts/test.sh --list
       scripts/test.sh --update-counts [NAME...]

With no NAME, runs every suite (the build first) and ends with "total: N passed, M failed".
NAME...          runs only those suites (names: --list), in the order of the list. The build
                 runs only when named, or when .build/release/touchauth or
                 pam/pam_touchauth.so is missing.
NAME:REGEX       runs only the checks of suite NAME whose names match REGEX (bash's =~; for
--filter REGEX   `swift`, swift test --filter). --filter applies to every NAME given without
                 its own. Only the e2e suites and `swift` take a filter. The scenario code of
                 an e2e suite still runs whole (a check depends on the steps before it): only
                 the checks that match are counted and printed, and "(setup)"/"(cleanup)"
                 steps still fail the run when they do not hold. A filter that matches no
                 check fails the suite.
--list           prints the suites' names, one per line with what each tests.
--update-counts  runs every suite (or the NAMEs) and rewrites their minimums in tests/counts
                 from this run: the count less 5 % (rounded down), the fuzz runners' count
                 itself. Refuses when any suite failed (the old minimums do not apply here).

A suite fails when its command exits non-zero, prints no "N passed, M failed" line, reports
a failure, or passes fewer checks than its minimum in tests/counts ("NAME MIN" lines). The
minimums apply only to a run of whole suites: not with a filter, not to a suite left out.
Exit status: 0 when every suite run passed, 1 when one failed, 2 for a bad argument.
EOF
}

# The suites, in run order. suites FN calls FN NAME KIND DESCRIPTION COMMAND... for each.
# KIND: single (one check: passes when the command exits 0, its output is not read), counted
# (reads "N passed, M failed"; minimum in tests/counts: last full run's count less 5 %), exact
# (counted, where each check is a whole target: the minimum is the count itself).
suites() {
    local f=$1
    $f build single "build (release helper, module with -Werror)" "$ROOT/scripts/build.sh"
    $f swift counted "Swift unit tests (core, the scan loop)" swift_unit_tests
    $f format single "C formatting (clang-format, pam/.clang-format)" make -s -C pam format-check
    $f spdx counted "license: every source file carries its SPDX line (Apache-2.0, LICENSE)" tests/spdx.sh
    $f mutants counted "mutants: each one in tests/mutants still applies (its old text once in its file)" tests/mutants_apply.sh
    $f docs-refs counted "docs: every reference to a document's heading resolves (a slug, never a section number)" tests/docs_refs.sh
    $f c counted "C unit tests (reply parser, helper spawn, terminal, held signals, lockers asked first, exported symbols, config file checks)" make -s -C pam check
    $f config-shim counted "config files: the shim's dump" pam/tests/check_config_files.sh pam/tests/config_dump
    $f config-helper counted "config files: the helper's dump" pam/tests/check_config_files.sh "$HELPER_BIN" config-dump --config
    $f config-perms counted "config file checks (owner, mode, links, size): the helper's dump" sh pam/tests/test_config_files_perms.sh "$HELPER_BIN" config-dump --config
    $f fake-helpers counted "e2e: faulty helpers never authenticate" tests/e2e/sandbox.sh pam/tests/e2e_fake_helpers.sh
    $f security counted "e2e: security (user names, links and owners, faults, socket mode, valgrind)" tests/e2e/security.sh
    $f unprivileged counted "e2e: unprivileged callers (real sudo vs the caller's env, setuid helper for screen lockers)" tests/e2e/unprivileged.sh
    $f fuzz-c exact "fuzz: the shim's reply and option parsers (libFuzzer, ASan+UBSan)" pam/fuzz/run.sh
    $f fuzz-swift exact "fuzz: the helper's config, request, state and armed-request decoders (Swift libFuzzer, ASan)" tests/fuzz/run.sh
    $f core counted "e2e: core flow (virtual sensor, pam_unix, pamtester)" tests/e2e/core_flow.sh
    $f readers counted "e2e: the readers at hand (two virtual readers, a closed lid, a removable port, one unplugged)" tests/e2e/readers.sh
    $f lockout counted "e2e: strikes, lockout, trust rules, state store (acct_mgmt, parallel, kill -9)" tests/e2e/lockout.sh
    $f stacks counted "e2e: only a succeeded password lifts the lockout, whatever the stack (Fedora's substack, the word anywhere, pam-auth-update with libpam-fprintd's profile)" tests/e2e/stacks.sh
    $f slow-disk counted "e2e: no free wrong finger on a slow disk (fsync over a second, Enter after each finger)" tests/e2e/slow_disk.sh
    $f terminal counted "e2e: terminal keys in real sudo and su (tmux, unshare), signals at the prompt, skips, lid" tests/e2e/terminal.sh
    $f doas counted "e2e: doas for real (tmux, an overlay over /etc): finger, Enter, typing, Ctrl-C, lockout, no terminal" tests/e2e/clients_doas.sh
    $f polkit counted "e2e: pkexec and the real polkitd (private bus, fake logind; text agent, a dialog-like agent, remote, no logind)" tests/e2e/clients_polkit.sh
    $f lockers counted "e2e: screen lockers for real (vlock; i3lock, xsecurelock on Xvfb and swaylock on headless sway in a fake local session; the setuid helper or not)" tests/e2e/clients_lockers.sh
    $f lightdm counted "e2e: LightDM and its GTK greeter on Xvfb (finger, wrong fingers, locked user, console in front)" tests/e2e/clients_lightdm.sh
    $f gdm counted "e2e: GDM's two stacks as its session workers run them (finger, password while the finger waits, wrong fingers, locked, remote, no greeter)" tests/e2e/clients_gdm.sh
    $f presence counted "e2e: presence (fake logind sessions, no terminal, no display, real su)" tests/e2e/presence.sh
    $f overlap counted "e2e: a touch answers one request (two real sudo at once, a hidden sudo in a job's pty, a helper SIGKILLed while armed, another user's request)" tests/e2e/overlap.sh
    $f sshd counted "e2e: network logins through real sshd on loopback (password, keyboard-interactive, key after a failed password, MaxAuthTries)" tests/e2e/sshd.sh
    $f cli counted "e2e: the touchauth command (enroll, list, delete, verify, enable/disable, doctor and its summary line; match-on-chip; --version everywhere; translated output; completions)" tests/e2e/cli.sh
    $f demo counted "e2e: scripts/demo.sh tells the story its headings say (each step's outcome)" tests/e2e/demo.sh
    $f fprintd counted "e2e: fprintd interop both ways (real fprintd, private bus, dbusmock polkit)" tests/e2e/fprintd.sh
    $f install counted "e2e: install, pam-auth-update, real /etc/pam.d, translations, man, uninstall, the .deb built by dpkg-buildpackage" tests/e2e/install.sh
    $f debian13 counted "e2e: Debian 13 (trixie roots, mmdebstrap): the .deb built with Debian's swiftlang, lintian; real sudo, su, sshd, lockout, pam-auth-update, purge there; the lockers suite" tests/e2e/debian13.sh
}
# The suites whose checks a filter can pick: the e2e suites count through check() in
# tests/e2e/lib.sh (which reads TOUCHAUTH_CHECK_FILTER), swift through swift test --filter.
FILTERABLE=" swift security unprivileged core lockout stacks slow-disk terminal doas polkit lockers lightdm gdm presence overlap sshd cli demo fprintd install "

source "$(dirname "$0")/lib.sh"
COUNTS="$ROOT/tests/counts"
ALL=()
collect() { ALL+=("$1"); }
suites collect
known() { local n; for n in "${ALL[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
bad() { echo "test.sh: $*" >&2; exit 2; }

# Arguments: suite names (each with an optional :REGEX), --filter, --list, --update-counts.
declare -A WANT=() FILTER=()
GLOBAL_FILTER="" UPDATE=0 LIST=0
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --list) LIST=1 ;;
        --update-counts) UPDATE=1 ;;
        --filter) [ $# -ge 2 ] || bad "--filter needs a REGEX"; GLOBAL_FILTER=$2; [ -n "$2" ] || bad "--filter: empty REGEX"; shift ;;
        --filter=*) GLOBAL_FILTER=${1#--filter=}; [ -n "$GLOBAL_FILTER" ] || bad "--filter: empty REGEX" ;;
        -*) bad "unknown option $1 (scripts/test.sh --help)" ;;
        *)
            name=${1%%:*}
            known "$name" || bad "unknown suite '$name' (scripts/test.sh --list)"
            WANT[$name]=1
            if [ "$name" != "$1" ]; then
                [ -n "${1#*:}" ] || bad "$name: empty REGEX"
                FILTER[$name]=${1#*:}
            fi ;;
    esac
    shift
done
if [ "$LIST" = 1 ]; then
    list() { printf '%-14s %s\n' "$1" "$3"; }
    suites list
    exit 0
fi
PARTIAL=0
[ ${#WANT[@]} -gt 0 ] && PARTIAL=1
if [ -n "$GLOBAL_FILTER" ]; then
    [ "$PARTIAL" = 1 ] || bad "--filter needs the suites it applies to (scripts/test.sh NAME --filter REGEX)"
    for name in "${!WANT[@]}"; do [ -n "${FILTER[$name]:-}" ] || FILTER[$name]=$GLOBAL_FILTER; done
fi
for name in "${!FILTER[@]}"; do
    case $FILTERABLE in *" $name "*) ;; *) bad "suite '$name' takes no filter (only: $FILTERABLE)" ;; esac
done
[ "$UPDATE" = 1 ] && [ ${#FILTER[@]} -gt 0 ] && bad "--update-counts counts whole suites: no filter"

# min NAME: the suite's minimum from tests/counts; nothing when it has none.
min() {
    [ -f "$COUNTS" ] || return 0
    awk -v n="$1" '$1 == n && NF == 2 { print $2; exit }' "$COUNTS"
}

ensure_packages $BUILD_PACKAGES $TEST_PACKAGES
cd "$ROOT"

LOG=$(mktemp /tmp/touchauth-test.XXXXXX)
trap 'rm -f "$LOG" "$LOG.swift"' EXIT
NAMES=() PASSES=() FAILS=() ASSERTS=() TIMES=() PROBLEMS=() SHORT=() KINDS=()

# run_suite NAME KIND DESCRIPTION COMMAND...: runs one suite. Its output must hold a line "N
# passed, M failed" (the last such line counts: N checks passed, M failed) and may hold "(A
# assertions)" when its checks are scenarios of several assertions (else A = N + M). The suite
# fails, without stopping the run, when the command exits non-zero, prints no such line,
# reports a failure, or passes fewer than its minimum (tests/counts; not for a filtered run
# nor under --update-counts); a failed suite counts at least one failure in the total. A
# single suite is one check: it passes when the command exits 0; its output is not read.
run_suite() {
    local short=$1 kind=$2 name=$3; shift 3
    local filter=${FILTER[$short]:-} min=""
    if [ "$kind" != single ] && [ -z "$filter" ] && [ "$UPDATE" = 0 ]; then min=$(min "$short"); fi
    echo; echo "=== $name${filter:+ (checks matching /$filter/)}"
    local start rc
    start=$(date +%s%N)
    set +e
    TOUCHAUTH_CHECK_FILTER=$filter "$@" 2>&1 | tee "$LOG"
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
            if [ -n "$filter" ] && [ $((passed + failed)) -eq 0 ]; then
                problems+=("no check matched /$filter/")
            elif [ -z "$filter" ] && [ "$UPDATE" = 0 ] && [ -z "$min" ]; then
                problems+=("no minimum for '$short' in tests/counts (scripts/test.sh --update-counts $short)")
            elif [ -n "$min" ] && [ "$failed" -eq 0 ] && [ "$passed" -lt "$min" ]; then
                problems+=("$passed passed, expected at least $min")
            elif [ -n "$min" ] && [ "$failed" -gt 0 ] && [ $((passed + failed)) -lt "$min" ]; then
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
    TIMES+=("$((ms / 1000)).$((ms % 1000 / 100))") PROBLEMS+=("$problem") SHORT+=("$short") KINDS+=("$kind")
}

# swift test's own verdict: "Test run with N tests ... passed" and exit 0, else failed (the
# failing tests counted from their "Test ... failed after" lines, at least one). A filter
# (TOUCHAUTH_CHECK_FILTER) goes to swift test --filter.
swift_unit_tests() {
    local args=()
    [ -n "${TOUCHAUTH_CHECK_FILTER:-}" ] && args=(--filter "$TOUCHAUTH_CHECK_FILTER")
    ensure_swift || { echo "0 passed, 1 failed"; return 1; }
    set +e
    "$SWIFT" test "${args[@]}" 2>&1 | grep -v 'prohibited flag' | tee "$LOG.swift"
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

# Runs the suites chosen: all of them, or the ones named (the build also when its outputs are
# missing: the other suites test the tree's own helper and module).
pick() {
    local short=$1
    if [ "$PARTIAL" = 1 ] && [ -z "${WANT[$short]:-}" ]; then
        [ "$short" = build ] && { [ ! -x "$HELPER_BIN" ] || [ ! -f "$MODULE_SO" ]; } || return 0
    fi
    run_suite "$@"
}
suites pick

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
ok=0
[ "$total_failed" -eq 0 ] && [ ${#failed_suites[@]} -eq 0 ] || ok=1

# --update-counts: the new minimums of the suites run, the other lines kept as they are.
if [ "$UPDATE" = 1 ]; then
    if [ "$ok" -ne 0 ]; then echo "test.sh: a suite failed: tests/counts left as it was" >&2; exit 1; fi
    new=$(mktemp "$COUNTS.XXXXXX")
    {
        echo "# The minimum count of checks each suite must pass in a whole run (scripts/test.sh):"
        echo "# NAME MIN. Written by scripts/test.sh --update-counts from a passing run: the count"
        echo "# less 5 % (rounded down, at least 1), so that one check more or less does not fail a suite but"
        echo "# a lost block does; the fuzz runners' count itself (each check is a whole target)."
        declare -A NEWMIN=()
        for i in "${!SHORT[@]}"; do
            case ${KINDS[i]} in
                # (never below 1: a suite of one check, spdx, must still pass it)
                counted) NEWMIN[${SHORT[i]}]=$((PASSES[i] * 95 / 100 > 0 ? PASSES[i] * 95 / 100 : 1)) ;;
                exact) NEWMIN[${SHORT[i]}]=${PASSES[i]} ;;
            esac
        done
        for n in "${ALL[@]}"; do
            m=${NEWMIN[$n]:-$(min "$n")}
            [ -n "$m" ] && echo "$n $m"
        done
    } > "$new"
    for n in "${ALL[@]}"; do
        was=$(min "$n") now=$(awk -v n="$n" '$1 == n { print $2 }' "$new")
        [ "$was" = "$now" ] || echo "  $n: ${was:-none} -> ${now:-none}"
    done
    mv "$new" "$COUNTS"
    chmod 0644 "$COUNTS"
    echo "tests/counts rewritten"
fi
exit $ok
