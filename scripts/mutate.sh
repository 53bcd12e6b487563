#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mutation testing: breaks the product on purpose, one small change at a time, and checks that
# a suite notices. scripts/mutate.sh --help says how.
usage() {
    cat <<'EOF'
usage: scripts/mutate.sh [--log DIR] [MUTANT...]
       scripts/mutate.sh --map

Applies each mutant (NAME.mut: old lines and the lines that replace them, scripts/mutant.py
says how; with no MUTANT, every tests/mutants/*.mut) to a scratch copy of this tree (under
/var/tmp; this checkout is never touched), rebuilds what it touches, and runs the suites that
cover the files it changes (--map prints which; scripts/test.sh NAME for each, cheapest first)
until one fails. It refuses to start when a mutant is stale (its old text is not in its file
exactly once): a mutant that no longer applies would silently lose its coverage. One line per
mutant:
    killed NAME by SUITE (S s)      a suite failed with the mutant applied ("(hung)" after
                                    SUITE: it ran far past its usual time and was stopped)
    survived NAME (S s)             every suite passed: no test notices this change
    error NAME: WHY                 it does not build, or no suite covers it
then "mutants: K killed, S survived" with the errors and the time taken. The suites that
killed a mutant are then run once on the unmutated tree: one that fails there too turns its
kills into errors (its failure was not the mutant's). Exit 0 only when every mutant was killed.

Speed: each suite stops at its first failed check (TOUCHAUTH_FAIL_FAST), and the suite that
killed a mutant last time (tests/mutants/killers, "NAME SUITE" lines) runs first when the map
lists it for that mutant; the rest of the map follows as usual, so a stale line costs time,
never a verdict. --update-killers rewrites that file from this run's kills.

--log DIR   keeps each suite's output: DIR/NAME.SUITE.log (the baseline's: DIR/base.SUITE.log)
--map       prints the map from source files to suites and exits
--update-killers  after the run, writes each killed mutant's suite to tests/mutants/killers
Root, as scripts/test.sh. The e2e suites take TOUCHAUTH_E2E_USER from the environment.
EOF
}

# A suite that takes much longer with a mutant than without (a hang: a deadline broken, a
# process that never ends) is stopped and counts as failed: "killed NAME by SUITE (hung)".
# Its limit: twice its usual seconds on this 2-core machine (scripts/suites.sh, measured unmutated)
# plus 20; MUTATE_SUITE_TIMEOUT=S sets one limit for all. The baseline run below uses the same
# limits, so a suite that is merely slow here turns its kills into errors, not false kills.
limit_for() {
    if [ -n "${MUTATE_SUITE_TIMEOUT:-}" ]; then echo "$MUTATE_SUITE_TIMEOUT"
    else echo $((2 * ${USUAL[$1]:-200} + 20)); fi
}

source "$(dirname "$0")/lib.sh"  # SWIFT; set -euo pipefail
source "$(dirname "$0")/suites.sh"  # suites, MUTATION_MAP
declare -A USUAL=()
usual_of() { USUAL[$1]=$3; }
suites usual_of
for e in "${MUTATION_MAP[@]}"; do
    for s in ${e#*|}; do
        [ -n "${USUAL[$s]:-}" ] || { echo "mutate.sh: MUTATION_MAP names '$s', not a suite of scripts/suites.sh" >&2; exit 2; }
    done
done
HERE=$ROOT
LOGDIR=""
UPDATE_KILLERS=""
MUTANTS=()
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --map) for e in "${MUTATION_MAP[@]}"; do printf '%-30s %s\n' "${e%%|*}" "${e#*|}"; done; exit 0 ;;
        --update-killers) UPDATE_KILLERS=1 ;;
        --log) [ $# -ge 2 ] || { echo "mutate.sh: --log needs a DIR" >&2; exit 2; }; LOGDIR=$2; shift ;;
        -*) echo "mutate.sh: unknown option $1 (scripts/mutate.sh --help)" >&2; exit 2 ;;
        *) [ -f "$1" ] || { echo "mutate.sh: no such mutant: $1" >&2; exit 2; }
           MUTANTS+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
    esac
    shift
done
if [ ${#MUTANTS[@]} -eq 0 ]; then
    for p in "$HERE"/tests/mutants/*.mut; do [ -f "$p" ] && MUTANTS+=("$p"); done
    [ ${#MUTANTS[@]} -gt 0 ] || { echo "mutate.sh: no tests/mutants/*.mut" >&2; exit 2; }
fi
MUTANT="python3 $HERE/scripts/mutant.py"
if ! $MUTANT check "$HERE" "${MUTANTS[@]}"; then
    echo "mutate.sh: stale mutants (above): restate each against the code as it is now, or remove it" >&2
    exit 2
fi
[ "$(id -u)" -eq 0 ] || { echo "mutate.sh: run as root (the suites are)" >&2; exit 2; }
START=$(date +%s)
# The last run's killers: NAME -> SUITE.
KILLERS_FILE="$HERE/tests/mutants/killers"
declare -A LAST_KILLER=() KILLED_BY=()
if [ -f "$KILLERS_FILE" ]; then
    while read -r n s; do
        case $n in "" | "#"*) continue ;; esac
        LAST_KILLER[$n]=$s
    done < "$KILLERS_FILE"
fi

# The scratch copy: the checkout's source files as they are now (tracked and new, not
# ignored: no .git, no build output), built from scratch once (SwiftPM's .build cannot move).
SCRATCH=$(mktemp -d /var/tmp/touchauth-mutate.XXXXXX)
chmod 0755 "$SCRATCH"  # the suites' test users load the module and run the helper from here
TREE="$SCRATCH/tree"
[ -n "$LOGDIR" ] || LOGDIR="$SCRATCH/logs"
mkdir -p "$TREE" "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)
RUNNING=""
cleanup() {
    if [ -n "$RUNNING" ]; then kill -TERM "$RUNNING" 2>/dev/null || true; wait "$RUNNING" 2>/dev/null || true; fi
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
(cd "$HERE" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -C "$TREE" -xf -
echo "scratch tree: $TREE (from $HERE)"

# suites_for FILE...: the union of the files' suites, in order; nothing when none covers.
suites_for() {
    local f e pat want=" "
    for f in "$@"; do
        for e in "${MUTATION_MAP[@]}"; do
            pat=${e%%|*}
            # shellcheck disable=SC2053  # the pattern is a glob on purpose
            if [[ $f == $pat ]]; then want+="${e#*|} "; break; fi
        done
    done
    local s out=" "
    for s in $want; do case $out in *" $s "*) ;; *) out+="$s " ;; esac; done
    echo $out
}
# first SUITE LIST...: the list with SUITE moved to its front, when the list has it.
first() {
    local lead=$1 s out=""; shift
    case " $* " in *" $lead "*) out=$lead ;; esac
    for s in "$@"; do [ "$s" = "$lead" ] || out+=" $s"; done
    echo $out
}

# What the build outputs hold: the C module and tests are rebuilt with every mutant and after
# its revert (make: a second or two). A Swift mutant is built for the suite about to run, and
# only then: the tests (swift build --build-tests, debug: what `swift` runs) before `swift`, the
# release helper before any other suite. A mutant that does not build there is an error, not a
# kill. RELEASE_OF and TESTS_OF name the Swift mutant each build holds, SWIFT_MUTANT the one
# applied ("": none).
RELEASE_OF="" TESTS_OF="" SWIFT_MUTANT=""
build_c() { make -s -C "$TREE/pam" all > "$SCRATCH/build.log" 2>&1; }
build_swift_tests() { (cd "$TREE" && "$SWIFT" build --build-tests) > "$SCRATCH/build.log" 2>&1; }
build_release() { (cd "$TREE" && bash scripts/build.sh) > "$SCRATCH/build.log" 2>&1; }
# ready_for SUITE: the build that SUITE runs holds the applied Swift mutant (or none).
ready_for() {
    if [ "$1" = swift ]; then
        [ "$TESTS_OF" != "$SWIFT_MUTANT" ] || return 0
        build_swift_tests || return 1
        TESTS_OF=$SWIFT_MUTANT
    else
        [ "$RELEASE_OF" != "$SWIFT_MUTANT" ] || return 0
        build_release || return 1
        RELEASE_OF=$SWIFT_MUTANT
    fi
}

# In the suite's own mount namespace, a /dev of its own: a fresh directory DIR holding the
# host's nodes and directories bound in, a devpts of its own, and no /dev/log, bound over /dev.
# Where the machine has no syslog socket, the suites serve one at /dev/log and remove it at
# their end: another checkout's run beside this one (another helper, a person) would
# otherwise remove ours mid-suite, and its log-line checks fail for no fault of the mutant.
# (A directory, not a tmpfs: clients_polkit.sh checks that no tmpfs of its own is left on /dev.)
PRIVATE_DEV='
    d=$1; shift
    mkdir "$d" || exit 125
    for e in /dev/* /dev/.[!.]*; do
        n=${e##*/}
        case $n in log | pts | ptmx | "*" | ".[!.]*") continue ;; esac
        if [ -L "$e" ]; then cp -P "$e" "$d/$n"
        elif [ -d "$e" ]; then mkdir "$d/$n" && mount --rbind "$e" "$d/$n"
        else touch "$d/$n" && mount --bind "$e" "$d/$n"; fi || exit 125
    done
    # Pseudo-terminals of its own (tmux, sshd): the host'"'"'s ptmx does not work from here.
    mkdir "$d/pts" && mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$d/pts" &&
        ln -s pts/ptmx "$d/ptmx" && mount --rbind "$d" /dev || exit 125
    exec "$@"'

# suite NAME LOG: scripts/test.sh NAME in the scratch tree (a mount namespace with the /dev
# above), with a timeout; its status.
DEVS=0
suite() {
    local rc=0 dev="$SCRATCH/dev.$((DEVS += 1))" limit
    limit=$(limit_for "$1")
    (cd "$TREE" && TOUCHAUTH_FAIL_FAST=1 exec timeout -k 10 "$limit" unshare -m --propagation private \
        bash -c "$PRIVATE_DEV" private-dev "$dev" bash scripts/test.sh "$1") > "$2" 2>&1 &
    RUNNING=$!
    wait "$RUNNING" || rc=$?
    RUNNING=""
    # Out here its binds were never mounted: empty files and directories.
    rm -rf "$dev"
    [ $rc -ne 124 ] || echo "mutate.sh: suite $1 stopped after $limit s (hung)" >> "$2"
    return $rc
}

# touch_importers FILE...: SwiftPM does not see a change to the headers of a C module
# (CFprint's shim.h: a mutant of it left the release helper as it was, and it "survived"; pam/'s
# headers are CConfig's, pam/include/module.modulemap); the Swift files of Sources/ and Tests/
# that import that module are touched, so that they and the module are built again, with the
# mutant and again after it is reverted.
touch_importers() {
    local f module
    for f in "$@"; do
        case $f in
            Sources/C*/*.h) module=${f#Sources/}; module=${module%%/*} ;;
            pam/*.h) module=CConfig ;;
            *) continue ;;
        esac
        grep -rlE --include='*.swift' "^((internal|package|public) )?import $module\$" "$TREE/Sources" "$TREE/Tests" |
            xargs -r touch
    done
}

# C mutants first, then the Swift ones: fewer rebuilds of the release helper.
sorted=()
for p in "${MUTANTS[@]}"; do grep -q '^@@ pam/' "$p" && sorted+=("$p"); done
for p in "${MUTANTS[@]}"; do grep -q '^@@ pam/' "$p" || sorted+=("$p"); done
MUTANTS=("${sorted[@]}")

echo "building the scratch tree"
if ! build_release; then
    tail -n 20 "$SCRATCH/build.log"; echo "mutate.sh: the unmutated tree does not build" >&2; exit 1
fi
if grep -q '^@@ Sources/' "${MUTANTS[@]}" && ! build_swift_tests; then
    tail -n 20 "$SCRATCH/build.log"; echo "mutate.sh: the unmutated tests do not build" >&2; exit 1
fi
echo "built in $(($(date +%s) - START)) s"

KILLED=0 SURVIVED=0 ERRORS=0
declare -A KILLERS=()   # suite -> the mutants it killed
for mutant in "${MUTANTS[@]}"; do
    name=$(basename "$mutant" .mut)
    t0=$(date +%s)
    files=$($MUTANT files "$mutant")
    $MUTANT apply "$TREE" "$mutant" "$SCRATCH/originals" || { echo "mutate.sh: cannot apply $name" >&2; exit 1; }
    c=0 swift=0
    while IFS= read -r f; do
        # The helper builds pam/'s CConfig target too (Package.swift): its files are both.
        case $f in
            pam/config*.[ch] | pam/version.h | pam/logind.h | pam/contract.h) c=1 swift=1 ;;
            pam/*) c=1 ;;
            Sources/* | Tests/* | Package.swift) swift=1 ;;
        esac
    done <<<"$files"
    [ $swift = 0 ] || SWIFT_MUTANT=$name
    touch_importers $files
    # shellcheck disable=SC2086  # a word list of paths without blanks
    suites=$(suites_for $files)
    # shellcheck disable=SC2086
    [ -z "${LAST_KILLER[$name]:-}" ] || suites=$(first "${LAST_KILLER[$name]}" $suites)
    verdict=""
    if [ -z "$suites" ]; then
        verdict="error $name: no suite covers $(echo $files)"
    elif ! build_c; then
        cp "$SCRATCH/build.log" "$LOGDIR/$name.build.log"
        verdict="error $name: does not build (see $LOGDIR/$name.build.log)"
    else
        for s in $suites; do
            if ! ready_for "$s"; then
                cp "$SCRATCH/build.log" "$LOGDIR/$name.build.log"
                verdict="error $name: does not build for $s (see $LOGDIR/$name.build.log)"
                break
            fi
            if ! suite "$s" "$LOGDIR/$name.$s.log"; then
                verdict="killed $name by $s"; KILLERS[$s]+=" $name"; KILLED_BY[$name]=$s
                grep -q "(hung)\$" "$LOGDIR/$name.$s.log" && verdict+=" (hung)"
                break
            fi
        done
        [ -n "$verdict" ] || verdict="survived $name"
    fi
    $MUTANT restore "$TREE" "$SCRATCH/originals" || { echo "mutate.sh: cannot revert $name" >&2; exit 1; }
    touch_importers $files
    # The module is rebuilt with the next mutant, the release helper when a suite needs it.
    SWIFT_MUTANT=""
    case $verdict in
        killed*) KILLED=$((KILLED + 1)) ;;
        survived*) SURVIVED=$((SURVIVED + 1)) ;;
        *) ERRORS=$((ERRORS + 1)) ;;
    esac
    case $verdict in error*) echo "$verdict" ;; *) echo "$verdict ($(($(date +%s) - t0)) s)" ;; esac
done

# Each killing suite once on the unmutated tree: a kill counts only if it passes there.
if [ ${#KILLERS[@]} -gt 0 ]; then
    build_c || { echo "mutate.sh: the unmutated tree no longer builds" >&2; exit 1; }
    for s in "${!KILLERS[@]}"; do
        ready_for "$s" || { echo "mutate.sh: the unmutated release helper no longer builds" >&2; exit 1; }
        if ! suite "$s" "$LOGDIR/base.$s.log"; then
            n=$(echo ${KILLERS[$s]} | wc -w)
            echo "error: suite $s fails without any mutant (see $LOGDIR/base.$s.log): its $n kills do not count:${KILLERS[$s]}"
            KILLED=$((KILLED - n)); ERRORS=$((ERRORS + n))
        fi
    done
fi
if [ -n "$UPDATE_KILLERS" ]; then
    for n in "${!LAST_KILLER[@]}"; do [ -n "${KILLED_BY[$n]:-}" ] || KILLED_BY[$n]=${LAST_KILLER[$n]}; done
    {
        echo "# NAME SUITE: the suite that killed each mutant last (scripts/mutate.sh --update-killers);"
        echo "# mutate.sh runs it first. Only an order: every suite of the map still runs if it passes."
        for n in "${!KILLED_BY[@]}"; do echo "$n ${KILLED_BY[$n]}"; done | sort
    } > "$KILLERS_FILE"
    echo "tests/mutants/killers rewritten"
fi
secs=$(($(date +%s) - START))
errors=""
[ "$ERRORS" -eq 0 ] || errors=", $ERRORS errors"
echo "mutants: $KILLED killed, $SURVIVED survived$errors in $((secs / 60)) min $((secs % 60)) s"
[ "$SURVIVED" -eq 0 ] && [ "$ERRORS" -eq 0 ]
