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
                 its own. Only the e2e suites and `swift` take a filter. An e2e suite written
                 in cases (case_ of tests/e2e/lib.sh) runs its common setup and the cases the
                 filter picks; one not written so still runs whole. Only the checks that match
                 are counted and printed, and "(setup)"/"(cleanup)" steps still fail the run
                 when they do not hold. A filter that matches no check fails the suite.
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


source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/suites.sh"
COUNTS="$ROOT/tests/counts"
ALL=()
FILTERABLE=" "
collect() { ALL+=("$1"); [ "$2" != checks ] || FILTERABLE+="$1 "; }
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
    list() { printf '%-14s %s\n' "$1" "$4"; }
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
    run_suite "$1" "$2" "$4" "${@:5}"
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
                counted | checks) NEWMIN[${SHORT[i]}]=$((PASSES[i] * 95 / 100 > 0 ? PASSES[i] * 95 / 100 : 1)) ;;
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
