#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where one matching pam-verify spends its time, phase by phase, without strace's inflation.
#   bench/phases.sh [--runs N]
# As root, from the checkout; installs what it needs with apt-get, as bench.sh does. Builds a copy
# of HEAD with bench/phase-marks.patch applied (each phase writes "M <microseconds> <name>" on
# CLOCK_MONOTONIC to stderr) in a temp git worktree, never in this tree, and runs it the way
# bench.sh times "helper alone": the shim's request on stdin, SCAN queued on the virtual sensor
# by bench/runner.c the moment its socket appears. runner -e gives each run's spawn and exit on
# the same clock, so the first row is exec -> Swift's main and the last the exit after the
# result line; bench/cmain.c, a C program linked with libfprint, gives the first row's floor.
# Prints the median of each phase; asserts nothing. The patch is a throwaway: the
# product never reads a clock or an environment variable for this. A patch that no longer
# applies is refreshed by hand (git diff of the marks after editing the sources).
source "$(dirname "$0")/../scripts/lib.sh"
RUNS=100
while [ $# -gt 0 ]; do
    case $1 in
        --runs) RUNS=$2; shift ;;
        -h|--help) sed -n '3,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "phases.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || { echo "phases.sh: run as root (it makes a test user)" >&2; exit 1; }
ensure_packages $BUILD_PACKAGES python3 binutils
T=$(mktemp -d /tmp/touchauth-phases.XXXXXX)
chmod 0700 "$T"
MADE_USER=""
cleanup() {
    set +e
    git -C "$ROOT" worktree remove --force "$T/tree" 2>/dev/null
    [ -n "$MADE_USER" ] && userdel "$MADE_USER" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

git -C "$ROOT" worktree add --detach "$T/tree" HEAD > /dev/null 2>&1 || { echo "phases.sh: git worktree add failed" >&2; exit 1; }
git -C "$T/tree" apply "$ROOT/bench/phase-marks.patch" || { echo "phases.sh: bench/phase-marks.patch does not apply to HEAD: refresh it" >&2; exit 1; }
echo "building the instrumented copy..." >&2
"$T/tree/scripts/build.sh" > "$T/build.log" 2>&1 || { tail -n 30 "$T/build.log"; echo "phases.sh: build failed" >&2; exit 1; }
install -m 0755 "$T/tree/.build/release/touchauth" "$T/touchauth"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$T/touchauth"
gcc -O2 -o "$T/runner" "$ROOT/bench/runner.c" -lutil
# shellcheck disable=SC2046
gcc -O2 -o "$T/cmain" "$ROOT/bench/cmain.c" $(pkg-config --cflags --libs libfprint-2) -Wl,-z,relro,-z,now

U=touchauth-bench SOCK="$T/vdev.sock" H="$T/touchauth"
if ! id "$U" > /dev/null 2>&1; then useradd -M -s /usr/sbin/nologin "$U"; MADE_USER=$U; fi
mkdir -m 0700 "$T/prints"
cat > "$T/touchauth.conf" <<EOF
# bench/phases.sh: as scripts/bench.sh's (the trust rules off, strikes and lockout on)
virtual_device = $SOCK
print_dir = $T/prints
state_dir = $T/state
password_after_boot = no
password_max_age = 0
password_after_enroll_change = no
terminal_without_logind = yes
EOF
chmod 0644 "$T/touchauth.conf"
rm -f "$SOCK"
python3 "$ROOT/tests/e2e/vsensor.py" "$SOCK" "SCAN bench-finger" "SCAN bench-finger" "SCAN bench-finger" "SCAN bench-finger" "SCAN bench-finger" > /dev/null 2>&1 &
"$H" enroll --user "$U" --finger right-index-finger --config "$T/touchauth.conf" --replace > "$T/enroll.out" 2>&1 || { cat "$T/enroll.out"; exit 1; }
wait
printf 'touchauth-request 1\nuser %s\nservice solo\nfallback none\narg config=%s\narg helper=%s\nend\n' "$U" "$T/touchauth.conf" "$H" > "$T/request"

"$T/runner" -n "$RUNS" -w 2 -i "$T/request" -e "$T/marks" -s "$SOCK" -c "SCAN bench-finger" -- "$H" pam-verify > "$T/runs" \
    || { echo "phases.sh: a run failed" >&2; exit 1; }
"$T/runner" -n "$RUNS" -w 2 -e "$T/cmarks" -- "$T/cmain" > "$T/cruns" || { echo "phases.sh: the C program failed" >&2; exit 1; }
python3 - "$T/runs" "$T/marks" "$RUNS" "$T/cruns" "$T/cmarks" <<'EOF'
import statistics, sys
runs = [dict(w.split('=') for w in l.split()) for l in open(sys.argv[1])]
marks, cur = [], None
for line in open(sys.argv[2]):
    _, t, name = line.rstrip('\n').split(' ', 2)
    if name == 'main':
        cur = []
        marks.append(cur)
    cur.append((int(t), name))
marks = marks[-int(sys.argv[3]):]  # the runner's warm-up runs come first
if len(marks) != len(runs):
    sys.exit(f"phases.sh: {len(runs)} runs but {len(marks)} sets of marks")
phases = {}
for run, m in zip(runs, marks):
    points = [(int(run['start']), 'spawn')] + m + [(int(run['end']), 'exit, reaped by the runner')]
    for (t0, _), (t1, name) in zip(points, points[1:]):
        phases.setdefault(name, []).append((t1 - t0) / 1000)
total = statistics.median(float(r['t']) / 1000 for r in runs)
print(f"{len(runs)} matching runs of pam-verify; medians in ms (the phases' medians need not add up to the total's)")
print(f"| phase (ends at) | median | min | max |\n|---|---|---|---|")
for name, v in phases.items():
    print(f"| {name} | {statistics.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
print(f"| **spawn -> exit** | **{total:.3f}** | | |")
cruns = [dict(w.split('=') for w in l.split()) for l in open(sys.argv[4])]
cmarks = [int(l.split()[1]) for l in open(sys.argv[5])][-len(cruns):]
print(f"| C program linked with libfprint (bench/cmain.c): spawn -> main | {statistics.median((m - int(r['start'])) / 1000 for r, m in zip(cruns, cmarks)):.3f} | | |")
print(f"| the same: main -> exit, having done nothing | {statistics.median((int(r['end']) - m) / 1000 for r, m in zip(cruns, cmarks)):.3f} | | |")
EOF
