#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fprintd interop, both ways, with the real fprintd (Debian's package) on a private system bus:
# dbus-daemon listening at the system bus's own path, /run/dbus/system_bus_socket, on a tmpfs
# of the sandbox's mount namespace (the helper asks fprintd there, and only there: decision
# 0033), polkit mocked with python3-dbusmock (as fprintd's own tests do), fprintd's state in
# $T, FP_VIRTUAL_DEVICE set for it. touchauth uses the same directory and the same virtual
# sensor (only one of them opens the sensor at a time).
#   fprintd-enroll   -> touchauth verify, and pam_touchauth.so through PAM
#   fprintd scanning (fprintd-enroll, fprintd-verify) -> our prompt: "in use", the password
#   at once, no strike, the sensor left to fprintd; touchauth enroll refuses; fprintd idle ->
#   our prompt on the same sensor grants
#   touchauth enroll -> fprintd-list, fprintd-verify
# Only the processes started here are stopped, by pid. /etc/pam.d is checked to be untouched
# (libpam-fprintd is never installed: it runs pam-auth-update).
source "$(dirname "$0")/lib.sh"
PIDS=()
cleanup() {
    [ -z "${SYSLOG_PID:-}" ] || syslog_stop
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT

PAMD_BEFORE=$(cd /etc/pam.d && md5sum -- * | sort)
missing=()
for p in fprintd python3-dbusmock dbus-daemon python3-dbus; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    cp -a /etc/pam.d "$T/pam.d.saved"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > "$T/apt.log" 2>&1 \
        || { echo "cannot install ${missing[*]}: $(tail -n 2 "$T/apt.log")"; echo "0 passed, 1 failed"; exit 1; }
    if [ "$(cd /etc/pam.d && md5sum -- * | sort)" != "$PAMD_BEFORE" ]; then
        echo "installing ${missing[*]} changed /etc/pam.d: restored"
        rm -rf /etc/pam.d && cp -a "$T/pam.d.saved" /etc/pam.d
    fi
fi
OUT=$(cd /etc/pam.d && md5sum -- * | sort)
check "/etc/pam.d unchanged by the packages" test "$OUT" = "$PAMD_BEFORE"

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
mkdir -m 0700 "$T/prints"
syslog_start  # the helper's log: what fprintd answered, and how long asking it took
PAM_RUNNER=in_syslog_ns  # (where another run serves /dev/log, ours is bound over it for the prompt)
# asked_fprintd: the helper's last "fprintd answered (waited N us): ..." line, for the output
asked_fprintd() { logged "fprintd answered" && echo "#   helper: $(grep -ao 'fprintd answered [^<]*' "$T/syslog" | tail -n 1)"; : > "$T/syslog"; }
write_config "$T/touchauth.conf" "state_dir=$T/state" "lockout_threshold=1000" "password_after_boot=no" \
    "password_max_age=0" "password_after_enroll_change=no"
C="$T/touchauth.conf"
P="$T/prints/$TUSER/virtual_device/0"
FPSOCK="$T/fprintd-vdev.sock"   # fprintd's virtual sensor; the helper's is $SOCK
# Our helper on fprintd's own sensor socket (C2): the same reader for both.
C2="$T/touchauth-fpsock.conf"
write_config "$C2" "state_dir=$T/state" "lockout_threshold=1000" "password_after_boot=no" \
    "password_max_age=0" "password_after_enroll_change=no" "virtual_device=$FPSOCK" "debug=yes"
write_config "$T/bound.conf" "state_dir=$T/state" "lockout_threshold=1000" "password_after_boot=no" \
    "password_max_age=0" "password_after_enroll_change=no" "timeout=5" "debug=yes"
service bound "auth [success=done default=ignore] $MODULE config=$T/bound.conf helper=$HELPER" "auth required pam_unix.so nodelay"
service full "auth [success=done default=ignore] $MODULE config=$C helper=$HELPER" "auth required pam_unix.so nodelay"
service inuse "auth [success=done default=ignore] $MODULE config=$C2 helper=$HELPER" "auth required pam_unix.so nodelay"
source "$E2E/private_bus.sh"

# The helper asks fprintd at the system bus's path: here a tmpfs over /run/dbus in the sandbox's
# mount namespace, where the private bus listens; the cases about other buses mount one of their
# own over it while they run.
run_dbus_dir
mount -t tmpfs -o mode=0755,size=1m touchauth-fprintd /run/dbus
enroll "$TUSER" right-little-finger ta-rl
check "(setup) touchauth enroll with no bus at all" test -f "$P/a"

echo "# a private system bus, polkit (dbusmock), fprintd"
private_bus "$T" "touchauth-e2e-$$" unix:path=/run/dbus/system_bus_socket
export DBUS_SYSTEM_BUS_ADDRESS=$BUS
/usr/bin/python3 -m dbusmock --system --template polkitd > "$T/polkit.log" 2>&1 &
PIDS+=($!)
bus_call() {  # bus_call PYTHON-EXPR-ON-bus: a small D-Bus call with python3-dbus
    /usr/bin/python3 -c "import dbus,sys; bus=dbus.SystemBus(); $1" 2>/dev/null
}
for _ in $(seq 100); do bus_call "sys.exit(0 if bus.name_has_owner('org.freedesktop.PolicyKit1') else 1)" && break; sleep 0.05; done
bus_call "dbus.Interface(bus.get_object('org.freedesktop.PolicyKit1','/org/freedesktop/PolicyKit1/Authority'),
  'org.freedesktop.DBus.Mock').SetAllowed(['net.reactivated.fprint.device.enroll','net.reactivated.fprint.device.verify',
  'net.reactivated.fprint.device.setusername'])"
check "polkit mock up, fprintd's actions allowed" test $? -eq 0
STATE_DIRECTORY="$T/prints" FP_VIRTUAL_DEVICE="$FPSOCK" FP_DRIVERS_WHITELIST=virtual_device FP_DEVICE_EMULATION=1 \
    /usr/libexec/fprintd --no-timeout > "$T/fprintd.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do bus_call "sys.exit(0 if bus.name_has_owner('net.reactivated.Fprint') else 1)" && break; sleep 0.05; done
OUT=$(fprintd-list "$TUSER" 2>&1)
check "fprintd answers on the private bus" has "Virtual device for debugging"

# The enrolled fingers: ta-rl above (touchauth enroll), fp-ri by fprintd-enroll, where touchauth
# reads it.
python3 "$E2E/vsensor.py" "$FPSOCK" "SCAN fp-ri" "SCAN fp-ri" "SCAN fp-ri" "SCAN fp-ri" "SCAN fp-ri" > /dev/null 2>&1 & S=$!
OUT=$(timeout 30 fprintd-enroll -f right-index-finger "$TUSER" 2>&1)
wait $S
check "fprintd-enroll completes" has "enroll-completed"
check "...and writes fprintd's file where touchauth reads it" test -f "$P/7"
cp -a "$P" "$T/prints.setup"
# prints FILE...: the user's prints are these of the setup's (a: ta-rl, 7: fp-ri) and no other
# (the virtual reader verifies one print a scan, in the order of their names: a case's scans
# follow from its prints).
prints() {
    local f
    rm -f "$P"/*
    for f in "$@"; do cp -a "$T/prints.setup/$f" "$P/$f"; done
}
finger_needed() {  # fprintd's reader waits for a finger (its finger-needed property)
    bus_call "m=dbus.Interface(bus.get_object('net.reactivated.Fprint','/net/reactivated/Fprint/Manager'),
  'net.reactivated.Fprint.Manager'); d=bus.get_object('net.reactivated.Fprint', m.GetDefaultDevice())
sys.exit(0 if d.Get('net.reactivated.Fprint.Device','finger-needed',dbus_interface='org.freedesktop.DBus.Properties') else 1)"
}
socket_seen() { stat -c '%i %a' "$FPSOCK" 2>/dev/null; }  # fprintd's listener: its inode, mode 755
# (field, the state file's strikes: tests/e2e/kit/state.sh)

# --- before fprintd: a system bus that never answers, one where fprintd is only activatable ----
# Each mounts a tmpfs of its own over /run/dbus (the private bus hidden below it) for its bus.
silent_bus() {
    local silent
    prints a
    : > "$T/syslog"
    mount -t tmpfs -o mode=0755,size=1m touchauth-fprintd-silent /run/dbus || return 1
    /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
held = []
while True: held.append(s.accept()[0])  # never a byte back' /run/dbus/system_bus_socket 2>/dev/null & silent=$!
    PIDS+=($silent)
    for _ in $(seq 100); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.05; done
    pam bound "$TUSER" "" "SCAN ta-rl"
    check "a system bus that never answers: the prompt goes on after the probe's bound and grants with the finger" \
        eval 'succeeded && no_password_prompt'
    check "...the helper logged that fprintd did not answer" logged "fprintd did not answer"
    asked_fprintd
    kill $silent; wait $silent 2>/dev/null
    umount /run/dbus
}
case_ "before fprintd: a system bus that never answers" silent_bus
# A bus that starts services itself, with a service file for fprintd's name whose program only
# says it ran.
activatable_bus() {
    local abus BUS  # (private_bus sets BUS: this bus's, for this case)
    prints a
    : > "$T/syslog"
    rm -rf "$T/services" "$T/abus" "$T/activated"
    mkdir "$T/services" "$T/abus"
    printf '#!/bin/sh\necho started >> %s/activated\n' "$T" > "$T/fake-fprintd"; chmod 0755 "$T/fake-fprintd"
    printf '[D-BUS Service]\nName=net.reactivated.Fprint\nExec=%s/fake-fprintd\n' "$T" > "$T/services/net.reactivated.Fprint.service"
    mount -t tmpfs -o mode=0755,size=1m touchauth-fprintd-activatable /run/dbus || return 1
    private_bus "$T/abus" unused unix:path=/run/dbus/system_bus_socket "$T/services"
    abus=${PIDS[-1]}
    pam bound "$TUSER" "" "SCAN ta-rl"
    check "a bus where fprintd is activatable but not running: the prompt grants with the finger" \
        eval 'succeeded && no_password_prompt'
    check "...and never started fprintd (its service file's program did not run)" test ! -e "$T/activated"
    asked_fprintd
    kill $abus; wait $abus 2>/dev/null
    umount /run/dbus
}
case_ "before fprintd: a bus where fprintd is only activatable" activatable_bus

# --- fprintd-enroll -> touchauth verify, and PAM ----------------------------------------------
fprintd_print() {
    local s
    prints 7 a
    rm -f "$SOCK"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN fp-ri" > /dev/null 2>&1 & s=$!
    OUT=$("$HELPER" verify --user "$TUSER" --config "$C" 2>&1); RC=$?
    wait $s
    check "touchauth verify matches fprintd's print" eval '[ $RC -eq 0 ] && has "Matched right-index-finger"'
    OUT=$("$HELPER" list --user "$TUSER" --config "$C" 2>&1)
    check "touchauth list shows it" has "$TUSER: right-index-finger (virtual_device/0)"
    pam full "$TUSER" "" "SCAN fp-ri"
    check "fprintd's print authenticates through pam_touchauth.so" eval 'succeeded && no_password_prompt'
    pam full "$TUSER" "$TPASS" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "(control) a stranger does not; the password does" eval 'succeeded && grep -q "^Password: " "$T/out"'
}
case_ "fprintd-enroll -> touchauth verify, and PAM" fprintd_print

# --- fprintd scanning with the reader: our prompt says it is in use, the password at once, no
# strike; touchauth enroll meanwhile refuses (both while one fprintd-enroll waits). Three strikes
# on disk before (a stranger's, as the case above leaves them).
fprintd_enrolling() {
    local fe socket_before strikes_before prints_before
    prints 7 a
    : > "$T/syslog"
    set_state 3 -
    rm -f "$FPSOCK"
    stdbuf -o0 timeout 60 fprintd-enroll -f left-middle-finger "$TUSER" > "$T/fe.out" 2>&1 & fe=$!
    PIDS+=($fe)  # (stopped at the end if a failed check left it waiting)
    for _ in $(seq 200); do finger_needed && break; sleep 0.05; done
    check "(setup) fprintd-enroll waits for a finger (finger-needed)" finger_needed
    socket_before=$(socket_seen)
    strikes_before=$(field strikes)
    pam inuse "$TUSER" "$TPASS"
    check "fprintd enrolling: our prompt says the reader is in use, then the password succeeds" \
        eval 'succeeded && has "The fingerprint reader is in use by another program (fprintd). Use your password." && grep -q "^Password: " "$T/out"'
    check "...the finger never asked for" lacks "Place your"
    check "...no strike on disk (strikes ${strikes_before:-none} before and after)" test "$(field strikes)" = "$strikes_before"
    check "...the sensor never opened by us: fprintd's socket as it was (inode, mode 755)" \
        eval 'test "$(socket_seen)" = "$socket_before" && test "${socket_before#* }" = 755'
    check "...the helper logged the reader left out" logged "virtual_device/0: fprintd scans with it; left out"
    asked_fprintd

    echo "# touchauth enroll while fprintd enrolls: one line, exit 1, nothing changed"
    prints_before=$(cd "$T/prints" && find . -type f | sort | xargs md5sum)
    # (timeout: an enroll that took the reader would wait for scans that never come)
    OUT=$(timeout 20 "$HELPER" enroll --user "$TUSER" --finger left-ring-finger --config "$C2" 2>&1); RC=$?
    check "touchauth enroll: one line, 'in use by fprintd', exit 1" \
        eval '[ $RC -eq 1 ] && [ "$(wc -l <<<"$OUT")" = 1 ] && has "Virtual device for debugging is in use by fprintd"'
    OUT=$(cd "$T/prints" && find . -type f | sort | xargs md5sum)
    check "...the prints unchanged" test "$OUT" = "$prints_before"
    check "...fprintd's socket as it was" test "$(socket_seen)" = "$socket_before"
    OUT=$("$HELPER" doctor --user "$TUSER" --config "$C2" 2>&1)
    check "touchauth doctor meanwhile: the reader is in use by fprintd, a prompt leaves it out" \
        has "virtual_device/0: in use by fprintd now (an enrollment or a verification): a prompt leaves it out"
    python3 "$E2E/vsensor.py" "$FPSOCK" "SCAN fp-lm" "SCAN fp-lm" "SCAN fp-lm" "SCAN fp-lm" "SCAN fp-lm" > /dev/null 2>&1
    wait $fe
    OUT=$(cat "$T/fe.out")
    check "...and the reader stayed fprintd's: its enrollment completes" has "enroll-completed"
}
case_ "fprintd scanning with the reader: our prompt says it is in use, the password at once, no strike" fprintd_enrolling

fprintd_verifying() {
    local fv socket_before strikes_before
    prints 7 a
    set_state 3 -
    strikes_before=$(field strikes)
    stdbuf -o0 -e0 timeout 60 fprintd-verify -f right-index-finger "$TUSER" > "$T/fvi.out" 2>&1 & fv=$!
    PIDS+=($fv)
    for _ in $(seq 200); do grep -q "Verify started" "$T/fvi.out" && finger_needed && break; sleep 0.05; done
    check "(setup) fprintd-verify waits for a finger" finger_needed
    socket_before=$(socket_seen)
    pam inuse "$TUSER" "$TPASS"
    check "fprintd verifying: our prompt says the reader is in use, then the password succeeds" \
        eval 'succeeded && has "in use by another program (fprintd)" && lacks "Place your"'
    check "...no strike on disk" test "$(field strikes)" = "$strikes_before"
    python3 "$E2E/vsensor.py" "$FPSOCK" "SCAN fp-ri" > /dev/null 2>&1
    wait $fv
    OUT="$(cat "$T/fvi.out")
socket before: $socket_before"
    check "...and fprintd's verification goes on with the sensor: verify-match" has "verify-match"
}
case_ "fprintd-verify waiting for a finger: the same" fprintd_verifying

# The scan to fprintd's socket path (pam's sensor_start empties it first; fp-ri is asked first:
# the virtual reader verifies one print a scan).
fprintd_idle() {
    prints 7 a
    : > "$T/syslog"
    check "(setup) fprintd waits for no finger now" eval '! finger_needed'
    SOCK=$FPSOCK pam inuse "$TUSER" "" "SCAN fp-ri"
    check "fprintd idle: our prompt on fprintd's sensor grants with the finger" \
        eval 'succeeded && no_password_prompt && lacks "in use"'
    OUT=$("$HELPER" doctor --user "$TUSER" --config "$C2" 2>&1)
    check "...and doctor says nothing of fprintd's use" eval 'has "virtual_device/0" && lacks "in use by fprintd"'
    asked_fprintd
}
case_ "fprintd running, holding nothing: our prompt on the same sensor grants" fprintd_idle

# --- what fprintd opens: GetDefaultDevice (GNOME asks it) does not open the reader, Claim does --
# fprintd's virtual reader makes its socket when it is opened (as ours does): none before.
cat > "$T/claim.py" <<'PY'
# claim.py USER SECONDS: GetDefaultDevice (its cost in ms printed), then Claim, held SECONDS.
import sys, time, dbus
bus = dbus.SystemBus()
manager = dbus.Interface(bus.get_object('net.reactivated.Fprint', '/net/reactivated/Fprint/Manager'),
                         'net.reactivated.Fprint.Manager')
t0 = time.monotonic()
path = manager.GetDefaultDevice()
print("GetDefaultDevice %s %.1f ms" % (path, (time.monotonic() - t0) * 1000), flush=True)
time.sleep(float(sys.argv[2]))
device = dbus.Interface(bus.get_object('net.reactivated.Fprint', path), 'net.reactivated.Fprint.Device')
device.Claim(sys.argv[1])
print("claimed", flush=True)
time.sleep(float(sys.argv[2]))
device.Release()
PY
fprintd_opens() {
    local cl
    rm -f "$FPSOCK"
    /usr/bin/python3 "$T/claim.py" "$TUSER" 1 > "$T/claim.out" 2>&1 & cl=$!
    for _ in $(seq 200); do grep -q "^GetDefaultDevice" "$T/claim.out" && break; sleep 0.05; done
    OUT=$(cat "$T/claim.out")
    echo "#   $(head -n 1 "$T/claim.out")"
    check "GetDefaultDevice answers a device path, fprintd does not open the reader" \
        eval 'has "GetDefaultDevice /net/reactivated/Fprint/Device/" && ! test -e "$FPSOCK"'
    for _ in $(seq 200); do grep -q "^claimed" "$T/claim.out" && break; sleep 0.05; done
    check "...Claim opens it (its socket appears)" eval 'grep -q "^claimed" "$T/claim.out" && test -S "$FPSOCK"'
    wait $cl
}
case_ "what fprintd opens: GetDefaultDevice (GNOME asks it) does not open the reader, Claim does" fprintd_opens

# --- touchauth enroll -> fprintd-list, fprintd-verify ------------------------------------------
# fprintd-verify: the scan goes once this fprintd-verify says it listens ("Verify started" is
# printed once VerifyStart returned; fprintd-verify drops a VerifyStatus that comes before that
# reply). Each call has an output file of its own: the wait once read the last call's "Verify
# started" from a file the new job had not truncated yet, the scan went before the new Claim,
# fprintd queued it, reported "verify-no-match" inside VerifyStart, and fprintd-verify, which
# had not got its reply yet, dropped it and waited for its timeout (NOTES.md).
verify_fprintd() {  # verify_fprintd ID: sets OUT
    local out="$T/fv.$1.out" t0
    : > "$out"
    t0=$(date +%s%N)
    stdbuf -o0 -e0 timeout 20 fprintd-verify -f left-thumb "$TUSER" >> "$out" 2>&1 & local V=$!
    for _ in $(seq 200); do grep -q "Verify started" "$out" && break; sleep 0.05; done
    python3 "$E2E/vsensor.py" "$FPSOCK" "SCAN $1" > "$T/fvs.out" 2>&1
    wait $V
    echo "#   fprintd-verify, SCAN $1: $((($(date +%s%N) - t0) / 1000000)) ms"
    OUT="$(cat "$out")
vsensor: $(cat "$T/fvs.out")"
}
touchauth_print() {
    local s
    prints 7 a
    rm -f "$SOCK"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN ta-lt" "SCAN ta-lt" "SCAN ta-lt" "SCAN ta-lt" "SCAN ta-lt" > /dev/null 2>&1 & s=$!
    OUT=$("$HELPER" enroll --user "$TUSER" --finger left-thumb --config "$C" 2>&1); RC=$?
    wait $s
    check "touchauth enroll" eval '[ $RC -eq 0 ] && test -f "$P/1"'
    OUT=$(fprintd-list "$TUSER" 2>&1)
    check "fprintd-list shows touchauth's print and fprintd's" eval 'has "left-thumb" && has "right-index-finger"'
    verify_fprintd ta-lt
    check "fprintd-verify matches touchauth's print" has "verify-match"
    verify_fprintd stranger
    check "(control) fprintd-verify: a stranger -> no match" eval 'has "verify-no-match" && lacks "verify-match (done)"'
}
case_ "touchauth enroll -> fprintd-list, fprintd-verify" touchauth_print

OUT=$(cd /etc/pam.d && md5sum -- * | sort)
check "/etc/pam.d still unchanged" test "$OUT" = "$PAMD_BEFORE"

summary
