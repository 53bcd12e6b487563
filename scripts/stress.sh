#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The hunt for checks that depend on timing: runs the named suites again and again while the
# machine is loaded, and prints, for each check that ever failed, how often it did.
usage() {
    cat <<'EOF'
usage: scripts/stress.sh [--rounds N] [--load N] [--nice K] [--log DIR] NAME[:REGEX]...

Runs `scripts/test.sh NAME` for each NAME, N rounds (default 5), while N busy processes
(--load, default one per core) spin at nice K (--nice, default 10; 0 competes as an equal,
19 only takes what is left). The load is bounded: it ends with the hunt, and each busy
process ends by itself after 6 hours at the most. Then one line per suite (rounds failed,
seconds per round: fastest, slowest) and one per check that failed at least once:

    SUITE  FAILED/ROUNDS  CHECK

A suite that failed without a failed check (its exit status, no summary line, fewer checks
than its minimum) counts as the check "(suite) WHY". Nothing is retried: one failure in any
round is a failure. --log DIR keeps every round's output (DIR/SUITE.ROUND.log; default a temp
directory, printed at the end). Exit status 0 when no round of any suite failed, 1 otherwise,
2 for a bad argument. Root, as scripts/test.sh; `scripts/test.sh --list` names the suites.
EOF
}
source "$(dirname "$0")/lib.sh"
ROUNDS=5 LOAD=$(nproc) NICE=10 LOGDIR="" NAMES=()
bad() { echo "stress.sh: $*" >&2; exit 2; }
number() { [[ $2 =~ ^[0-9]+$ ]] || bad "$1 takes a whole number"; }
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --rounds) number "$1" "${2:-}"; ROUNDS=$2; [ "$ROUNDS" -ge 1 ] || bad "--rounds: at least 1"; shift ;;
        --load) number "$1" "${2:-}"; LOAD=$2; shift ;;
        --nice) number "$1" "${2:-}"; NICE=$2; [ "$NICE" -le 19 ] || bad "--nice: 0 to 19"; shift ;;
        --log) [ -n "${2:-}" ] || bad "--log needs a DIR"; LOGDIR=$2; shift ;;
        -*) bad "unknown option $1 (scripts/stress.sh --help)" ;;
        *) NAMES+=("$1") ;;
    esac
    shift
done
[ ${#NAMES[@]} -gt 0 ] || bad "name the suites (scripts/test.sh --list)"
[ "$(id -u)" -eq 0 ] || bad "run as root (the suites are)"
# Each name must be one test.sh knows: it says so itself, before any load starts.
for n in "${NAMES[@]}"; do
    bash "$ROOT/scripts/test.sh" --list | awk '{ print $1 }' | grep -qx -- "${n%%:*}" || bad "unknown suite '${n%%:*}'"
done
if [ -z "$LOGDIR" ]; then LOGDIR=$(mktemp -d /var/tmp/touchauth-stress.XXXXXX); else mkdir -p "$LOGDIR"; fi

# The load: busy loops at low priority, each ending by itself after 6 hours at the most, and
# all of them when the hunt ends (however it ends).
BUSY=()
stop_load() { [ ${#BUSY[@]} -eq 0 ] || { kill "${BUSY[@]}" 2> /dev/null; wait "${BUSY[@]}" 2> /dev/null || true; }; BUSY=(); }
trap stop_load EXIT
trap 'exit 130' INT TERM HUP
for _ in $(seq "$LOAD"); do
    nice -n "$NICE" timeout 6h sh -c 'while :; do :; done' &
    BUSY+=($!)
done
echo "stress: ${#NAMES[@]} suite(s) x $ROUNDS rounds, load $LOAD busy process(es) at nice $NICE, logs in $LOGDIR"

declare -A FAILS=() SUITE_FAILED=() FASTEST=() SLOWEST=()
for r in $(seq "$ROUNDS"); do
    for n in "${NAMES[@]}"; do
        s=${n%%:*} log="$LOGDIR/${n%%:*}.$r.log"
        start=$SECONDS
        rc=0
        bash "$ROOT/scripts/test.sh" "$n" > "$log" 2>&1 || rc=$?
        took=$((SECONDS - start))
        [ -n "${FASTEST[$s]:-}" ] && [ "${FASTEST[$s]}" -le "$took" ] || FASTEST[$s]=$took
        [ -n "${SLOWEST[$s]:-}" ] && [ "${SLOWEST[$s]}" -ge "$took" ] || SLOWEST[$s]=$took
        checks=$(sed -n 's/^FAIL - //p' "$log")
        if [ "$rc" -ne 0 ]; then
            SUITE_FAILED[$s]=$((${SUITE_FAILED[$s]:-0} + 1))
            if [ -z "$checks" ]; then
                checks="(suite) $(sed -n 's/^suite [^:]*: //p' "$log" | tail -n 1)"
                [ "$checks" != "(suite) " ] || checks="(suite) exit status $rc"
            fi
        fi
        while IFS= read -r c; do
            [ -n "$c" ] && FAILS["$s"$'\t'"$c"]=$((${FAILS["$s"$'\t'"$c"]:-0} + 1))
        done <<< "$checks"
        echo "stress: round $r/$ROUNDS $s: $([ "$rc" -eq 0 ] && echo passed || echo FAILED) in $took s"
    done
done
stop_load

echo
printf '%-14s %-8s %s\n' suite failed "seconds a round (fastest-slowest)"
for n in "${NAMES[@]}"; do
    s=${n%%:*}
    printf '%-14s %-8s %s\n' "$s" "${SUITE_FAILED[$s]:-0}/$ROUNDS" "${FASTEST[$s]}-${SLOWEST[$s]}"
done
echo
if [ ${#FAILS[@]} -eq 0 ]; then
    echo "no check failed in $ROUNDS rounds"
else
    printf '%-14s %-8s %s\n' suite failed check
    for k in "${!FAILS[@]}"; do
        printf '%-14s %-8s %s\n' "${k%%$'\t'*}" "${FAILS[$k]}/$ROUNDS" "${k#*$'\t'}"
    done | sort
fi
echo "logs: $LOGDIR"
[ ${#SUITE_FAILED[@]} -eq 0 ]
