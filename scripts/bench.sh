#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What users feel, side by side with the baselines (issue 8). Prints one table; asserts nothing.
#   scripts/bench.sh [--with-fprintd] [--system-bus] [--rounds N] [--runs N] [--no-cold] [--no-build]
# --system-bus: in a mount namespace of its own, a private bus at the system bus's path
# (/run/dbus/system_bus_socket, a tmpfs over /run/dbus), which the helper asks about fprintd
# (decision 0033); with --with-fprintd, fprintd runs on it. Without it, /run/dbus is the host's.
# BENCH_HELPER=... BENCH_MODULE=... bench another build (e.g. a patched copy) instead of the tree's.
# As root on Debian 12, from the checkout: installs what it needs with apt-get, builds if the
# build is missing or older than the sources, then works in a private temp dir (virtual sensor
# socket, prints, state, config, PAM services under pam_wrapper) that it removes at exit, with
# the processes it started. It creates local users touchauth-bench{,-np,-lk,-dis} (with a
# password, shell nologin) and deletes those it created.
#
# How (details in bench/README.md, and at the top of bench/runner.c):
# - bench/runner.c spawns each command (posix_spawn) and times spawn -> exit with
#   CLOCK_MONOTONIC; for the sensor cases it sends the virtual sensor's SCAN the moment the
#   socket appears (inotify), or once the prompt is on the pty ("armed").
# - The cases run in ROUNDS interleaved rounds of RUNS runs each (plus one warm-up run per
#   batch), so slow phases of this noisy 2-core VM hit every case alike; each figure is the
#   median, and each ratio is median / median of a baseline measured in the same run.
source "$(dirname "$0")/lib.sh"

WITH_FPRINTD=0 ROUNDS=10 RUNS=40 COLD=1 BUILD=1 SYSTEM_BUS=0
ARGS=("$@")
while [ $# -gt 0 ]; do
    case $1 in
        --with-fprintd) WITH_FPRINTD=1 ;;
        --system-bus) SYSTEM_BUS=1 ;;
        --rounds) ROUNDS=$2; shift ;;
        --runs) RUNS=$2; shift ;;
        --no-cold) COLD=0 ;;
        --no-build) BUILD=0 ;;   # use the build as it is (others may be mid-edit)
        -h|--help) sed -n '3,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || { echo "bench.sh: run as root (it makes test users and a private sensor)" >&2; exit 1; }
if [ $SYSTEM_BUS -eq 1 ] && [ "${TOUCHAUTH_BENCH_NS:-}" != 1 ]; then
    exec unshare -m --propagation private env TOUCHAUTH_BENCH_NS=1 bash "$0" "${ARGS[@]}"
fi
BENCH_START=$(date +%s)

ensure_packages $BUILD_PACKAGES pamtester libpam-wrapper libpam-modules time python3 binutils
[ $WITH_FPRINTD -eq 1 ] && ensure_packages fprintd dbus-daemon polkitd

# --- the private world -------------------------------------------------------------------
T=$(mktemp -d /tmp/touchauth-bench.XXXXXX)
chmod 0700 "$T"
PIDS=() MADE_USERS=()
cleanup() {
    set +e  # every step runs, even if a daemon already went away with the bus
    local i
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[i]}" 2>/dev/null; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
    for u in "${MADE_USERS[@]}"; do userdel "$u" 2>/dev/null; done
    # pam_wrapper's copies of our service dir that a pamtester left behind (marked by a file).
    for d in /tmp/pam.?; do [ -e "$d/touchauth-bench-$$" ] && rm -rf "$d"; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
SYSTEM_BUS_MSG="the host's /run/dbus ($([ -S /run/dbus/system_bus_socket ] && echo "a bus listens there" || echo "no bus socket"))"
if [ $SYSTEM_BUS -eq 1 ]; then
    source "$ROOT/tests/e2e/private_bus.sh"
    [ -d /run/dbus ] || mkdir -m 0755 /run/dbus
    mount -t tmpfs -o mode=0755,size=1m touchauth-bench /run/dbus
    private_bus "$T" "touchauth-bench-$$" unix:path=/run/dbus/system_bus_socket \
        || { echo "bench.sh: dbus-daemon did not start: $(head -c 200 "$T/bus.log")" >&2; exit 1; }
    SYSTEM_BUS_MSG="a private bus at /run/dbus/system_bus_socket"
fi

# Build when missing or older than its sources (--no-build: take the build as it is).
stale() {  # stale TARGET DIR...: TARGET missing, or a source in DIR newer
    [ ! -e "$1" ] && return 0
    local target=$1; shift
    [ -n "$(find "$@" -type f \( -name '*.swift' -o -name '*.c' -o -name '*.h' -o -name '*.map' \) -newer "$target" 2>/dev/null | head -n 1)" ]
}
if [ -n "${BENCH_HELPER:-}${BENCH_MODULE:-}" ]; then :
elif [ ! -x "$HELPER_BIN" ] || [ ! -f "$MODULE_SO" ] || { [ $BUILD -eq 1 ] && { stale "$HELPER_BIN" "$ROOT/Sources" || stale "$MODULE_SO" "$ROOT/pam"; }; }; then
    echo "building (scripts/build.sh)..." >&2
    "$ROOT/scripts/build.sh" > "$T/build.log" 2>&1 \
        || { tail -n 30 "$T/build.log"; echo "bench.sh: scripts/build.sh failed" >&2; exit 1; }
fi

# A snapshot of the build: others may rebuild the tree while this runs. Root-owned, 0755/0644,
# as the module requires of its helper.
install -m 0755 "${BENCH_HELPER:-$HELPER_BIN}" "$T/touchauth"
# Stripped as dh_strip strips the packaged helper: what a user's cold start reads from disk
# (this VM reads ahead 8 MB, so a cold start reads the whole file; the debug info is 5.6 MB).
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$T/touchauth" 2> /dev/null || true  # (a wrapper script stays as it is)
install -m 0644 "${BENCH_MODULE:-$MODULE_SO}" "$T/pam_touchauth.so"
H="$T/touchauth" M="$T/pam_touchauth.so"
mkdir -p "$T/bin" "$T/raw" "$T/pam.d" "$T/cstate"
FPRINT_FLAGS=$(pkg-config --cflags --libs libfprint-2)
gcc -O2 -Wall -Wextra -o "$T/bin/runner" "$ROOT/bench/runner.c" -lutil
# shellcheck disable=SC2086
gcc -O2 -Wall -Wextra -o "$T/bin/baseline" "$ROOT/bench/baseline.c" $FPRINT_FLAGS
gcc -O2 -Wall -Wextra -o "$T/bin/fakehelper" "$ROOT/bench/fakehelper.c"
install -m 0755 "$T/bin/fakehelper" "$T/fakehelper"
R="$T/bin/runner"
PY=/usr/bin/python3

U=touchauth-bench NP=touchauth-bench-np LK=touchauth-bench-lk DIS=touchauth-bench-dis
PASS='bench pass 9'
for u in $U $NP $LK $DIS; do
    if ! id "$u" >/dev/null 2>&1; then useradd -M -s /usr/sbin/nologin "$u"; MADE_USERS+=("$u"); fi
    echo "$u:$PASS" | chpasswd
done

SOCK="$T/vdev.sock"
mkdir -m 0700 "$T/prints"
# The trust rules (password after boot, after 48 h, after enrolment changes) are off: each would
# demand a password first. Strikes and lockout state are still read and written. A machine
# without logind (this VM, CI) counts a terminal only with terminal_without_logind
# (BENCH_NO_TWL=1 leaves it out: for a module older than that key, which would log a warning
# on every call).
cat > "$T/touchauth.conf" <<EOF
# scripts/bench.sh
virtual_device = $SOCK
print_dir = $T/prints
state_dir = $T/state
password_after_boot = no
password_max_age = 0
password_after_enroll_change = no
$([ "${BENCH_NO_TWL:-0}" = 1 ] || echo "terminal_without_logind = yes")
EOF
chmod 0644 "$T/touchauth.conf"
ARGS="config=$T/touchauth.conf helper=$H"

enroll() {  # enroll USER ID
    rm -f "$SOCK"
    "$PY" "$ROOT/tests/e2e/vsensor.py" "$SOCK" "SCAN $2" "SCAN $2" "SCAN $2" "SCAN $2" "SCAN $2" > /dev/null 2>&1 &
    local sender=$!
    "$H" enroll --user "$1" --finger right-index-finger --config "$T/touchauth.conf" --replace > "$T/enroll.out" 2>&1
    local rc=$?
    wait "$sender" 2>/dev/null
    return $rc
}
enroll $U bench-finger || { cat "$T/enroll.out"; echo "bench.sh: cannot enroll on the virtual sensor" >&2; exit 1; }
enroll $LK bench-lk || { cat "$T/enroll.out"; exit 1; }
enroll $DIS bench-dis || { cat "$T/enroll.out"; exit 1; }
PRINT="$T/prints/$U/virtual_device/0/7"

# One directory per service: pam_wrapper copies every file of PAM_WRAPPER_SERVICE_DIR into a
# fresh /tmp/pam.X at each start, ~0.05-0.25 ms a file on this VM, which a real /etc/pam.d never
# costs; with all services in one directory that copying was most of the pam_permit baseline.
service() {  # service NAME AUTH-LINES...
    local name=$1; shift
    mkdir -p "$T/pam.d/$name"
    { printf '%s\n' "$@"; echo "account required pam_permit.so"; } > "$T/pam.d/$name/$name"
    : > "$T/pam.d/$name/touchauth-bench-$$"  # marks pam_wrapper's copies as ours
}
service permit "auth required pam_permit.so"
service skip "auth [success=done default=ignore] $M $ARGS" "auth required pam_permit.so"
# The floor of any skip: one more module that does nothing but be loaded and called.
service floor "auth [success=done default=ignore] pam_deny.so" "auth required pam_permit.so"
# The floor of a refusal that must say why (the lockout): a module that says one line.
service say "auth optional pam_echo.so Too many failed attempts. Enter your password to use your fingerprint again." \
    "auth required pam_permit.so"
service solo "auth required $M $ARGS"
service fake "auth required $M config=$T/touchauth.conf helper=$T/fakehelper"
service unix "auth required pam_unix.so nodelay"
# Locking a user needs one failure with these (the measured stack uses them too).
LOCKARGS="$ARGS max_tries=1 lockout_threshold=1"
service lock-solo "auth required $M $LOCKARGS"
service lock-skip "auth [success=done default=ignore] $M $LOCKARGS" "auth required pam_permit.so"
service enter "auth [success=done default=ignore] $M $ARGS timeout=3" "auth required pam_unix.so nodelay"
# The request the shim would send (docs/PROTOCOL.md), for timing the helper alone. Issue 4 added a
# "fallback" line: take the form this helper accepts (a malformed request exits 2).
request() {  # request USER [EXTRA-LINE]
    printf 'touchauth-request 1\nuser %s\nservice solo\n' "$1"
    if [ -n "${2:-}" ]; then printf '%s\n' "$2"; fi
    printf 'arg config=%s/touchauth.conf\narg helper=%s\nend\n' "$T" "$H"
}
for extra in "fallback none" ""; do
    request $NP "$extra" > "$T/request"
    "$H" pam-verify < "$T/request" > /dev/null 2>&1 && break
done
request $U "$extra" > "$T/request"

PW=(-E LD_PRELOAD=libpam_wrapper.so -E PAM_WRAPPER=1)
svcdir() { echo "PAM_WRAPPER_SERVICE_DIR=$T/pam.d/$1"; }  # -E "$(svcdir SERVICE)"
FPENV=(-E "FP_VIRTUAL_DEVICE=$SOCK" -E FP_DRIVERS_WHITELIST=virtual_device -E FP_DEVICE_EMULATION=1)
REMOTE=(-I rhost=203.0.113.9)
# Every pamtester stands for a client whose screen shows the prompt (PAM_TTY ":0"): with no
# terminal and no display nobody could answer, and the module would not offer the sensor.
SEEN=(-I tty=:0)
QUEUED=(-s "$SOCK" -c "SCAN bench-finger")
ARMED=(-s "$SOCK" -c "SCAN bench-finger" -d 20 -o "successfully authenticated")

# pam_out SERVICE USER [pamtester -I items...]: one verbose run, its output in $OUT (checks only).
pam_out() {
    local svc=$1 user=$2; shift 2
    OUT=$(echo "" | LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$T/pam.d/$svc" \
        timeout 20 pamtester -v "${SEEN[@]}" "$@" "$svc" "$user" authenticate 2>&1) || true
}
MSG_UNAVAIL="Authentication service cannot retrieve authentication info"
NOTES=()
note() { NOTES+=("$*"); }

# --- the cases -----------------------------------------------------------------------------
# Each case is a function taking the runner's -n/-w; its lines go to $T/raw/<case>.
case_true()          { "$R" "$@" -- /bin/true; }
case_permit()        { "$R" "$@" "${PW[@]}" -E "$(svcdir permit)" -- pamtester "${SEEN[@]}" permit $U authenticate; }
case_permit_remote() { "$R" "$@" "${PW[@]}" -E "$(svcdir permit)" -- pamtester "${SEEN[@]}" "${REMOTE[@]}" permit $U authenticate; }
case_skip_np()       { "$R" "$@" "${PW[@]}" -E "$(svcdir skip)" -- pamtester "${SEEN[@]}" skip $NP authenticate; }
case_floor()         { "$R" "$@" "${PW[@]}" -E "$(svcdir floor)" -- pamtester "${SEEN[@]}" floor $NP authenticate; }
case_floor_remote()  { "$R" "$@" "${PW[@]}" -E "$(svcdir floor)" -- pamtester "${SEEN[@]}" "${REMOTE[@]}" floor $U authenticate; }
case_skip_remote()   { "$R" "$@" "${PW[@]}" -E "$(svcdir skip)" -- pamtester "${SEEN[@]}" "${REMOTE[@]}" skip $U authenticate; }
case_match()         { "$R" "$@" "${PW[@]}" -E "$(svcdir solo)" "${QUEUED[@]}" -- pamtester "${SEEN[@]}" solo $U authenticate; }
case_c_base()        { "$R" "$@" "${FPENV[@]}" "${QUEUED[@]}" -- "$T/bin/baseline" "$PRINT"; }
# The C program with the two writes the trust rules require (bench/baseline.c -s): the floor of
# a helper that keeps them, for the rows measured against a floor without them.
case_c_state()       { "$R" "$@" "${FPENV[@]}" "${QUEUED[@]}" -- "$T/bin/baseline" -s "$T/cstate/0" "$PRINT"; }
case_helper()        { "$R" "$@" -i "$T/request" "${QUEUED[@]}" -- "$H" pam-verify; }
case_fake()          { "$R" "$@" "${PW[@]}" -E "$(svcdir fake)" -- pamtester "${SEEN[@]}" fake $U authenticate; }
case_armed()         { "$R" "$@" "${PW[@]}" -E "$(svcdir solo)" "${ARMED[@]}" -a "fingerprint reader" -- pamtester "${SEEN[@]}" -v solo $U authenticate; }
case_c_armed()       { "$R" "$@" "${FPENV[@]}" "${ARMED[@]/successfully authenticated/result success}" -a armed -- "$T/bin/baseline" -a "$PRINT"; }
case_c_armed_state() { "$R" "$@" "${FPENV[@]}" "${ARMED[@]/successfully authenticated/result success}" -a armed -- "$T/bin/baseline" -a -s "$T/cstate/0" "$PRINT"; }
case_h_armed()       { "$R" "$@" -i "$T/request" "${ARMED[@]/successfully authenticated/result success}" -a "info " -- "$H" pam-verify; }
case_unix()          { echo "$PASS" > "$T/pass"; "$R" "$@" -i "$T/pass" "${PW[@]}" -E "$(svcdir unix)" -- pamtester "${SEEN[@]}" unix $U authenticate; }
case_locked()        { "$R" "$@" "${PW[@]}" -E "$(svcdir lock-skip)" -- pamtester "${SEEN[@]}" lock-skip $LK authenticate; }
case_say()           { "$R" "$@" "${PW[@]}" -E "$(svcdir say)" -- pamtester "${SEEN[@]}" say $LK authenticate; }
case_disabled()      { "$R" "$@" "${PW[@]}" -E "$(svcdir skip)" -- pamtester "${SEEN[@]}" skip $DIS authenticate; }

# --- checks before timing: each stack does what its row claims -------------------------------
rm -f "$SOCK"; pam_out solo $NP
grep -qF "$MSG_UNAVAIL" <<<"$OUT" && [ ! -e "$SOCK" ] || { echo "$OUT"; echo "bench.sh: the not-enrolled stack does not skip as expected" >&2; exit 1; }
rm -f "$SOCK"; pam_out solo $U "${REMOTE[@]}"
grep -qF "$MSG_UNAVAIL" <<<"$OUT" && [ ! -e "$SOCK" ] || { echo "$OUT"; echo "bench.sh: the remote stack does not skip as expected" >&2; exit 1; }
case_match -n 1 -w 0 > /dev/null || { rm -f "$SOCK"; "$PY" "$ROOT/tests/e2e/vsensor.py" "$SOCK" "SCAN bench-finger" & pam_out solo $U; echo "$OUT"; wait;  echo "bench.sh: the match case fails" >&2; exit 1; }

# 2. disabled / locked: rows light up when the features exist.
LOCKED_ROW="" DISABLED_ROW=""
if "$H" unlock --help > /dev/null 2>&1; then
    rm -f "$SOCK"
    "$PY" "$ROOT/tests/e2e/vsensor.py" "$SOCK" "SCAN stranger" > /dev/null 2>&1 & sender=$!
    pam_out lock-solo $LK
    kill $sender 2>/dev/null || true; wait $sender 2>/dev/null || true
    rm -f "$SOCK"; pam_out lock-solo $LK
    if grep -qi "too many" <<<"$OUT" && [ ! -e "$SOCK" ]; then LOCKED_ROW=yes
    else LOCKED_ROW="n/a (touchauth unlock exists, but one failure with lockout_threshold=1 did not lock: $(tr '\n' ' ' <<<"$OUT" | cut -c1-120))"; fi
else
    LOCKED_ROW="n/a (not implemented: touchauth unlock --help fails)"
fi
if "$H" disable --help > /dev/null 2>&1; then
    if "$H" disable --user $DIS --config "$T/touchauth.conf" > "$T/disable.out" 2>&1 \
        || "$H" disable $DIS --config "$T/touchauth.conf" > "$T/disable.out" 2>&1; then
        rm -f "$SOCK"; pam_out solo $DIS
        if grep -qF "$MSG_UNAVAIL" <<<"$OUT" && [ ! -e "$SOCK" ]; then DISABLED_ROW=yes
        else DISABLED_ROW="n/a (touchauth disable ran, but the user's stack still opened the sensor or did not skip)"; fi
    else
        DISABLED_ROW="n/a (touchauth disable exists; the bench does not know its usage: $(head -c 100 "$T/disable.out"))"
    fi
else
    DISABLED_ROW="n/a (not implemented: touchauth disable --help fails)"
fi

# 7. fprintd: private system bus (abstract socket: polkitd runs as its own user), polkitd
# (it allows root everything), fprintd with its state in $T; pam_fprintd.so unpacked from its
# .deb into $T, because installing libpam-fprintd runs pam-auth-update on /etc/pam.d.
FPRINTD_MSG=""
start_fprintd() {
    local F="$T/fprintd" deb
    mkdir -p "$F/deb" "$F/state/$U/virtual_device/0" "$F/state/$NP"
    chmod -R 0700 "$F/state"
    rmdir "$F/state/$NP"
    cp "$PRINT" "$F/state/$U/virtual_device/0/7"
    (cd "$F/deb" && apt-get download -q libpam-fprintd > "$F/download.log" 2>&1) || { FPRINTD_MSG="apt-get download libpam-fprintd failed"; return 1; }
    deb=$(ls "$F"/deb/libpam-fprintd_*.deb 2>/dev/null | head -n 1)
    dpkg-deb -x "$deb" "$F/root" || { FPRINTD_MSG="cannot unpack $deb"; return 1; }
    PAM_FPRINTD=$(find "$F/root" -name pam_fprintd.so | head -n 1)
    [ -n "$PAM_FPRINTD" ] || { FPRINTD_MSG="no pam_fprintd.so in $deb"; return 1; }
    source "$ROOT/tests/e2e/private_bus.sh"
    [ $SYSTEM_BUS -eq 1 ] || private_bus "$F" "touchauth-bench-$$" || true
    [ -n "$BUS" ] || { FPRINTD_MSG="dbus-daemon did not start: $(head -c 200 "$F/bus.log")"; return 1; }
    DBUS_SYSTEM_BUS_ADDRESS=$BUS /usr/lib/polkit-1/polkitd --no-debug > "$F/polkit.log" 2>&1 &
    PIDS+=($!)
    DBUS_SYSTEM_BUS_ADDRESS=$BUS STATE_DIRECTORY="$F/state" FP_VIRTUAL_DEVICE="$F/vdev.sock" \
        FP_DRIVERS_WHITELIST=virtual_device FP_DEVICE_EMULATION=1 /usr/libexec/fprintd --no-timeout > "$F/fprintd.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do
        DBUS_SYSTEM_BUS_ADDRESS=$BUS fprintd-list $U 2>/dev/null | grep -q right-index && break; sleep 0.05
    done
    DBUS_SYSTEM_BUS_ADDRESS=$BUS fprintd-list $U 2>&1 | grep -q right-index \
        || { FPRINTD_MSG="fprintd does not list the print: $(DBUS_SYSTEM_BUS_ADDRESS=$BUS fprintd-list $U 2>&1 | tail -n 1)"; return 1; }
    service fp-solo "auth required $PAM_FPRINTD max-tries=1 timeout=10"
    service fp-skip "auth [success=done default=ignore] $PAM_FPRINTD max-tries=1 timeout=10" "auth required pam_permit.so"
    FPW=("${PW[@]}" -E "DBUS_SYSTEM_BUS_ADDRESS=$BUS")
    FSOCK="$F/vdev.sock"
}
case_fp_armed() { "$R" "$@" "${FPW[@]}" -E "$(svcdir fp-solo)" -s "$FSOCK" -c "SCAN bench-finger" -d 20 -o "successfully authenticated" -a "fingerprint reader" -- pamtester "${SEEN[@]}" -v fp-solo $U authenticate; }
case_fp_np()    { "$R" "$@" "${FPW[@]}" -E "$(svcdir fp-skip)" -- pamtester "${SEEN[@]}" fp-skip $NP authenticate; }
if [ $WITH_FPRINTD -eq 1 ]; then
    if [ ! -x /usr/libexec/fprintd ]; then FPRINTD_MSG="fprintd is not installed (apt-get install fprintd failed)"
    elif start_fprintd && case_fp_armed -n 1 -w 0 > /dev/null 2> "$T/fp.err"; then FPRINTD_MSG=ok
    else [ -n "$FPRINTD_MSG" ] || FPRINTD_MSG="pam_fprintd did not authenticate: $(head -c 200 "$T/fp.err")"; fi
fi

# --- timing --------------------------------------------------------------------------------
CASES=(true permit permit_remote floor floor_remote skip_np skip_remote match c_base c_state helper fake unix)
ARMED_CASES=(armed c_armed c_armed_state h_armed)
[ "$LOCKED_ROW" = yes ] && CASES+=(locked say)
[ "$DISABLED_ROW" = yes ] && CASES+=(disabled)
[ "$FPRINTD_MSG" = ok ] && CASES+=(fp_np) && ARMED_CASES+=(fp_armed)
FAILED_CASES=()
run_case() {  # run_case NAME RUNS
    case " ${FAILED_CASES[*]} " in *" $1 "*) return 0 ;; esac
    if ! "case_$1" -n "$2" -w 1 >> "$T/raw/$1" 2> "$T/err.$1"; then
        FAILED_CASES+=("$1"); echo "bench.sh: case $1 failed: $(head -c 300 "$T/err.$1")" >&2
    fi
}
echo "timing: $ROUNDS rounds x $RUNS runs of ${#CASES[@]} cases, $ROUNDS x $((RUNS / 3 + 1)) of ${#ARMED_CASES[@]} armed cases..." >&2
for round in $(seq "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        n=$RUNS; [ "$c" = unix ] && n=$((RUNS / 3 + 1))   # pam_unix hashes: slower, fewer runs
        run_case "$c" "$n"
    done
    for c in "${ARMED_CASES[@]}"; do run_case "$c" $((RUNS / 3 + 1)); done
done

# 5. Enter -> password prompt (the pty driver detects whether Enter skips to the password).
ENTER_ROW=""
if "$PY" "$ROOT/bench/enter.py" 10 "$PASS" 'press enter|enter ↵|⏎' \
    env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$T/pam.d/enter" \
    pamtester -v -I tty=@TTY@ enter $U authenticate > "$T/raw/enter" 2> "$T/err.enter"; then
    if grep -q '^absent=' "$T/raw/enter"; then
        ENTER_ROW="n/a (Enter does not skip to the password yet: the prompt came $(sed -n 's/^absent=//p' "$T/raw/enter" | awk '{printf "%.1f s", $1/1e6}') after Enter, at the fingerprint timeout; hint seen: $(sed -n 's/^hint=\(.*\) hinted=.*/\1/p' "$T/raw/enter" | cut -c1-60))"
    else ENTER_ROW=yes; fi
else
    ENTER_ROW="n/a (the pty driver failed: $(head -c 200 "$T/raw/enter" "$T/err.enter" | tr '\n' ' '))"
fi

# 6. Peak RSS with /usr/bin/time -v's figure (%M, KiB), helper and C baseline.
case_rss_helper() { "$R" "$@" -i "$T/request" "${QUEUED[@]}" -- /usr/bin/time -f "rss=%M" -a -o "$T/raw/rss_helper" "$H" pam-verify; }
case_rss_base()   { "$R" "$@" "${FPENV[@]}" "${QUEUED[@]}" -- /usr/bin/time -f "rss=%M" -a -o "$T/raw/rss_base" "$T/bin/baseline" "$PRINT"; }
"case_rss_helper" -n 10 -w 0 > /dev/null 2>&1 || note "rss: /usr/bin/time on the helper failed"
"case_rss_base" -n 10 -w 0 > /dev/null 2>&1 || note "rss: /usr/bin/time on the baseline failed"

# Cold cache: the first run after dropping the page cache (3 times each).
if [ $COLD -eq 1 ] && sync && echo 3 > /proc/sys/vm/drop_caches 2> /dev/null; then
    for _ in 1 2 3; do
        sync; echo 3 > /proc/sys/vm/drop_caches; case_match -n 1 -w 0 >> "$T/raw/cold_match" 2>/dev/null
        sync; echo 3 > /proc/sys/vm/drop_caches; case_c_base -n 1 -w 0 >> "$T/raw/cold_base" 2>/dev/null
        sync; echo 3 > /proc/sys/vm/drop_caches; case_permit -n 1 -w 0 >> "$T/raw/cold_permit" 2>/dev/null
    done
    COLD_ROW=yes
else
    COLD_ROW="n/a (cannot write /proc/sys/vm/drop_caches here, or --no-cold)"
fi

# --- the table -------------------------------------------------------------------------------
S="$T/spec"
row() { printf 'ROW\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$S"; }
text() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$S"; }
sec() { printf 'SEC\t%s\n' "$1" >> "$S"; }
: > "$S"
sec "1. skip path (pamtester + pam_wrapper, start -> exit)"
# Each skip against its floor (issue 24's target): the same stack with pam_deny, a module that
# does nothing but be loaded and called, in touchauth's place; the floor rows say what loading
# any one module more costs over pam_permit alone.
row "not enrolled: touchauth + pam_permit" skip_np t ms "floor: pam_deny + pam_permit" floor t - 1.05
row "remote rhost: touchauth + pam_permit" skip_remote t ms "floor, rhost" floor_remote t - 1.05
row "  floor: pam_deny (loaded, does nothing) + pam_permit" floor t ms "pam_permit alone" permit t - -
row "  floor, rhost" floor_remote t ms "pam_permit alone, rhost" permit_remote t - -
sec "2. disabled / locked user (touchauth + pam_permit)"
if [ "$DISABLED_ROW" = yes ]; then row "disabled user" disabled t ms "floor: pam_deny + pam_permit" floor t - 1.05
else text NA "disabled user" "$DISABLED_ROW"; fi
if [ "$LOCKED_ROW" = yes ]; then row "locked user (the module reads the marker, says the line)" locked t ms "its floor: pam_echo (one line)" say t - 1.05
    row "  floor: pam_echo (says one line) + pam_permit" say t ms "pam_permit alone" permit t - -
else text NA "locked user" "$LOCKED_ROW"; fi
sec "3. match, SCAN queued: pamtester start -> exit (PAM_SUCCESS)"
row "touchauth (pamtester, shim, helper)" match t ms "C open+verify" c_base t 8 2
row "  part: helper alone (pam-verify, request on stdin)" helper t ms "C open+verify" c_base t - -
row "  bound: C open+verify + the trust rules' two writes" c_state t ms "C open+verify" c_base t - -
row "  part: helper alone, against that bound" helper t ms "C + the two writes" c_state t - -
row "  part: spawn -> sensor listens, pam path" match sock ms "C program" c_base sock - -
row "  part: spawn -> sensor listens, helper alone" helper sock ms "C program" c_base sock - -
row "  part: shim + spawn of a do-nothing C helper" fake t ms "pam_permit alone" permit t - -
sec "4. scan -> PAM_SUCCESS (sensor armed, prompt shown, scan sent 20 ms later)"
row "scan -> 'successfully authenticated' printed" armed scan_done ms "C: scan -> its result line" c_armed scan_done 3 -
row "  scan -> pamtester exit" armed scan_exit ms "C: scan -> exit" c_armed scan_exit - -
row "  part: helper alone, scan -> its result line" h_armed scan_done ms "C: scan -> its result line" c_armed scan_done - -
row "  part: helper alone, scan -> exit" h_armed scan_exit ms "C: scan -> exit" c_armed scan_exit - -
row "  bound: C + the match's reset write, scan -> exit" c_armed_state scan_exit ms "C: scan -> exit" c_armed scan_exit - -
row "pamtester start -> fingerprint prompt shown" armed prompt ms "pam_permit alone (whole run)" permit t - -
sec "5. Enter -> password prompt (pty)"
if [ "$ENTER_ROW" = yes ]; then row "Enter -> 'Password: ' shown" enter enter ms "" - - 50 -
else text NA "Enter -> password prompt" "$ENTER_ROW"; fi
sec "6. memory"
row "helper peak RSS (/usr/bin/time -v, match)" rss_helper rss MB "C open+verify" rss_base rss 12 -
row "host (pamtester) peak RSS, touchauth skip stack" skip_np rss KB "pam_permit alone" permit rss - -
sec "7. fprintd (pam_fprintd + fprintd on a private bus)"
if [ $WITH_FPRINTD -eq 0 ]; then text NA "fprintd comparison" "not run (give --with-fprintd)"
elif [ "$FPRINTD_MSG" != ok ]; then text NA "fprintd comparison" "n/a: $FPRINTD_MSG"
else
    row "not enrolled: pam_fprintd + pam_permit" fp_np t ms "touchauth, same stack" skip_np t - -
    row "pamtester start -> fingerprint prompt shown" fp_armed prompt ms "touchauth" armed prompt - -
    row "scan -> 'successfully authenticated' printed" fp_armed scan_done ms "touchauth" armed scan_done - -
    row "  bound: C + the reset write, scan -> exit" c_armed_state scan_exit ms "pam_fprintd" fp_armed scan_done - -
    text INFO "match with the SCAN queued" "not comparable: pam_fprintd drops a scan that arrives before its VerifyStart reply, then waits out its timeout"
fi
sec "8. context"
row "pam_unix, correct password (nodelay)" unix t ms "pam_permit alone" permit t - -
row "/bin/true (spawn + wait floor of the runner)" true t ms "" - - - -
row "runner's reaction: socket created -> SCAN written" match react ms "" - - - -
if [ "$COLD_ROW" = yes ]; then
    row "cold cache, first run: match" cold_match t ms "C open+verify, cold" cold_base t - -
    row "cold cache, first run: pam_permit alone" cold_permit t ms "" - - - -
else text NA "cold cache" "$COLD_ROW"; fi
size_h=$(stat -c %s "${BENCH_HELPER:-$HELPER_BIN}"); size_s=$(stat -c %s "$H")
text INFO "helper binary size" "$(awk -v a="$size_h" -v b="$size_s" 'BEGIN{printf "%.1f MB, %.1f MB stripped, as measured (%d / %d bytes)", a/1048576, b/1048576, a, b}')"
text INFO "module size" "$(stat -c %s "$M") bytes"

echo
if [ -n "${BENCH_HELPER:-}${BENCH_MODULE:-}" ]; then what="helper ${BENCH_HELPER:-$HELPER_BIN}, module ${BENCH_MODULE:-$MODULE_SO}"
else what="build of $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet HEAD -- Sources pam 2>/dev/null || echo ' + uncommitted changes')"; fi
echo "touchauth bench: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -r), $what, $ROUNDS rounds x $RUNS runs"
echo "system bus: $SYSTEM_BUS_MSG; fprintd $([ "$FPRINTD_MSG" = ok ] && echo "running on $([ $SYSTEM_BUS -eq 1 ] && echo it || echo "a private bus the helper does not ask")" || echo "not running")"
"$PY" "$ROOT/bench/table.py" "$S" "$T/raw"
for n in "${NOTES[@]}"; do echo "note: $n"; done
for c in "${FAILED_CASES[@]}"; do echo "FAILED case $c: $(head -c 300 "$T/err.$c")"; done
echo "(times: median/min/max of n runs; ratio = median / baseline median, same run; took $(( $(date +%s) - BENCH_START )) s)"
