#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing but the right finger opens the door (issue 6), end to end with pamtester under
# pam_wrapper, the real helper and libfprint's virtual sensor: hostile user names, unsafe print
# and state files (links, foreign owners, writable modes), faults the fake-helper suite does not
# have (a helper that is not executable, crashes at each protocol step, closes its output first,
# the sensor unplugged or busy mid-scan), the socket's mode, and valgrind memcheck on the module.
# In every case where a broken check could let someone in, a matching scan is sent anyway: the
# case passes only if that scan does NOT authenticate. GRANTS counts the successes seen where
# none may be (must stay 0).
source "$(dirname "$0")/lib.sh"

make_user "$TUSER" "$TPASS"
CONF="$T/touchauth.conf"
mkdir -m 0700 "$T/state"
write_config "$CONF" "helper=$HELPER" "state_dir=$T/state" "timeout=3" "password_after_boot=no" \
    "password_max_age=0" "password_after_enroll_change=no"
enroll "$TUSER" right-index-finger tu-right-index
PRINT="$T/prints/$TUSER/virtual_device/0/7"
ARGS="config=$CONF debug"
service solo "auth required $MODULE $ARGS"
syslog_start
PAM_RUNNER=in_syslog_ns
trap 'syslog_stop; rm -rf "$T"' EXIT
GRANTS=0
FAULTS=0
denied() {  # no success, and count it if there was one
    if succeeded; then GRANTS=$((GRANTS + 1)); return 1; fi
    return 0
}
unavail() { has "$MSG_UNAVAIL"; }
sensor_unopened() { test ! -e "$SOCK"; }

echo "# control: the enrolled finger succeeds with this setup"
pam solo "$TUSER" "" "SCAN tu-right-index"
check "(control) the right finger authenticates" succeeded
check "the helper has no RUNPATH (\$ORIGIN would make it look for libraries beside itself as root)" \
    bash -c "! readelf -d '$HELPER' | grep -qE 'RUNPATH|RPATH'"

echo "# user names: from PAM, checked before any path or spawn"
long=$(printf 'u%.0s' $(seq 300))
for name in "../root" "$TUSER/../root" "$long" $'touchauth-test\nroot' "no-such-user-touchauth" \
    "Zoë-ünïcödé" "用户" "." ".." $'bell\a' "$TUSER "; do
    : > "$T/syslog"
    pam solo "$name" "" "SCAN tu-right-index"
    shown=$(printf '%q' "$name" | cut -c1-40)
    check "user $shown: refused as unknown" has "User not known to the underlying authentication module"
    check "user $shown: no success" denied
    check "user $shown: the sensor is never armed" sensor_unopened
done
pam solo "../root" ""
check "the module logs why (invalid user name)" has "invalid user name"
# The helper's own check, with a forged request (no module in between).
for name in "../root" "$TUSER/x" "no-such-user-touchauth"; do
    : > "$T/syslog"
    reply=$(printf 'touchauth-request 1\nuser %s\nservice solo\nfallback none\narg config=%s\nend\n' \
        "$name" "$CONF" | in_syslog_ns "$HELPER" pam-verify)
    OUT=$reply
    check "helper, forged request for '$name': systemCancel" has "result systemCancel"
    check "helper, forged request for '$name': syslog says why" logged "refusing unknown or malformed user name"
done

echo "# print and state files: links, owners, modes"
cp -p "$PRINT" "$T/print.orig"
restore_print() { rm -f "$PRINT"; cp -p "$T/print.orig" "$PRINT"; }
unsafe_print_case() {  # NAME LOG-TEXT: the print was tampered with; a matching scan must fail
    : > "$T/syslog"
    pam solo "$TUSER" "" "SCAN tu-right-index"
    check "$1: no success" denied
    check "$1: falls through to the password (PAM_AUTHINFO_UNAVAIL)" unavail
    check "$1: syslog: $2" logged "$2"
    FAULTS=$((FAULTS + 1))
}
mv "$PRINT" "$T/print.elsewhere"; ln -s "$T/print.elsewhere" "$PRINT"
unsafe_print_case "print file is a symlink" "a symbolic link"
rm -f "$PRINT" "$T/print.elsewhere"; restore_print
ln "$PRINT" "$T/print.hardlink"
unsafe_print_case "print file has a second hard link" "has other hard links"
rm -f "$T/print.hardlink"
chown "$TUSER" "$PRINT"
unsafe_print_case "print file owned by the user" "not owned by root"
restore_print
chmod 0666 "$PRINT"
unsafe_print_case "print file writable by others" "writable by group or others"
restore_print
chmod 0777 "$T/prints/$TUSER/virtual_device"
unsafe_print_case "print directory writable by others" "writable by group or others"
chmod 0700 "$T/prints/$TUSER/virtual_device"
chown "$TUSER" "$T/prints/$TUSER"
unsafe_print_case "the user's print directory owned by the user" "not owned by root"
chown root "$T/prints/$TUSER"
mv "$T/prints/$TUSER" "$T/prints-real"; ln -s "$T/prints-real" "$T/prints/$TUSER"
: > "$T/syslog"
pam solo "$TUSER" "" "SCAN tu-right-index"
check "the user's print directory is a symlink: no success" denied
check "...the module does not follow it (no prints: the helper is not started)" sensor_unopened
rm "$T/prints/$TUSER"; mv "$T/prints-real" "$T/prints/$TUSER"
pam solo "$TUSER" "" "SCAN tu-right-index"
check "(control) restored prints authenticate again" succeeded

TUID=$(id -u "$TUSER")
STATEF="$T/state/$TUID"
fresh_state() { rm -f "$STATEF" "$STATEF".*; }
unsafe_state_case() {  # NAME: the state was tampered with: locked, the sensor never armed
    : > "$T/syslog"
    pam solo "$TUSER" "" "SCAN tu-right-index"
    check "$1: no success (counts as locked)" denied
    check "$1: the sensor is never armed" sensor_unopened
    check "$1: syslog: fingerprint locked" logged "fingerprint locked until the password is used"
    FAULTS=$((FAULTS + 1))
}
printf 'touchauth-state 1\nstrikes 0\nlocked_at -\npassword_at -\npassword_boot_id -\nprints_hash -\n' > "$T/state.good"
chmod 0600 "$T/state.good"
fresh_state; ln -s "$T/state.good" "$STATEF"
unsafe_state_case "state file is a symlink"
fresh_state; cp -p "$T/state.good" "$STATEF"; ln "$STATEF" "$T/state.hard"
unsafe_state_case "state file has a second hard link"
rm -f "$T/state.hard"
fresh_state; cp -p "$T/state.good" "$STATEF"; chown "$TUSER" "$STATEF"
unsafe_state_case "state file owned by the user"
fresh_state; cp -p "$T/state.good" "$STATEF"; chmod 0622 "$STATEF"
unsafe_state_case "state file writable by group and others"
fresh_state; chmod 0777 "$T/state"
unsafe_state_case "state directory writable by others"
chmod 0700 "$T/state"
fresh_state; mkdir -m 0700 "$T/state.real"; mv "$T/state" "$T/state.moved"; ln -s "$T/state.real" "$T/state"
unsafe_state_case "state directory is a symlink"
rm "$T/state"; mv "$T/state.moved" "$T/state"; rm -rf "$T/state.real"
# A planted link where the helper writes: the temporary and lock names are opened O_NOFOLLOW.
fresh_state; touch "$T/victim"; ln -s "$T/victim" "$STATEF.tmp"
pam solo "$TUSER" "" "SCAN wrong-finger" "SCAN wrong-finger" "SCAN wrong-finger"
check "a symlink planted at the state's temporary name: no success" denied
check "...the file it points to is untouched" test ! -s "$T/victim"
fresh_state

echo "# config files the helper reads (its own parser; the shim's: pam/tests/test_config_files_perms.sh)"
cp "$CONF" "$T/user.conf"; chown "$TUSER" "$T/user.conf"
OUT=$("$HELPER" config-dump --config "$T/user.conf" 2>&1)
check "helper refuses a config file owned by a user" has "not owned by root"
cp "$CONF" "$T/gw.conf"; chmod 0664 "$T/gw.conf"
OUT=$("$HELPER" config-dump --config "$T/gw.conf" 2>&1)
check "helper refuses a group-writable config file" has "writable by group or others"
ln -s "$CONF" "$T/link.conf"
OUT=$("$HELPER" config-dump --config "$T/link.conf" 2>&1)
check "helper refuses a config file that is a symlink" has "a symbolic link"
service userconf "auth required $MODULE config=$T/user.conf debug"
pam userconf "$TUSER" "" "SCAN tu-right-index"
check "a user-owned config through PAM: no success" denied
check "...the password path" unavail

echo "# the virtual sensor's socket: 0600 in a root-only directory"
rm -f "$SOCK"
pam solo "$TUSER" "" > /dev/null &
pampid=$!
for _ in $(seq 300); do [ -S "$SOCK" ] && break; sleep 0.01; done
MODE=$(stat -c '%a %U' "$SOCK" 2>/dev/null)
DIRMODE=$(stat -c '%a %U' "$(dirname "$SOCK")")
python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null 2>&1
wait "$pampid"
OUT="socket: $MODE; directory: $DIRMODE"
# bind(2) gives a socket 0777 & ~umask: 700 under the helper's umask 077. connect(2) needs
# write permission, so that is "root only", as 600 would be.
check "the helper's socket is root's with no group/other bits (umask 077)" test "$MODE" = "700 root"
check "...in a directory only root may enter" test "$DIRMODE" = "700 root"

echo "# faults the fake-helper suite does not cover, each ending in the password"
FH="$T/fake"; mkdir -m 0755 "$FH"
fake() {  # fake NAME: a fake helper, script on stdin
    { echo '#!/bin/sh'; cat; } > "$FH/$1"; chmod 0755 "$FH/$1"
}
fault_case() {  # fault_case NAME LOG-TEXT: fake helper NAME must end in the password path
    service "f_$1" "auth required $MODULE helper=$FH/$1 print_dir=$T/prints debug"
    PAM_RUNNER= pam "f_$1" "$TUSER" ""
    check "fault $1: no success" denied
    check "fault $1: PAM_AUTHINFO_UNAVAIL (the password is next)" unavail
    check "fault $1: logged: $2" has "$2"
    FAULTS=$((FAULTS + 1))
}
fake not_exec <<<'printf "touchauth 1\nresult success\n"'
chmod 0644 "$FH/not_exec"
fault_case not_exec "is not executable"
# SIGSEGV and abort at each step: before reading, after reading, after the header, after a
# message, after the result line (exit status decides: a crash after "result success" is no success).
steps=(
    'kill -SEGV $$'
    'cat > /dev/null; kill -SEGV $$'
    'cat > /dev/null; echo "touchauth 1"; kill -SEGV $$'
    'cat > /dev/null; printf "touchauth 1\ninfo scanning\n"; kill -SEGV $$'
    'cat > /dev/null; printf "touchauth 1\nresult success\n"; kill -SEGV $$'
    'cat > /dev/null; printf "touchauth 1\nresult success\n"; kill -ABRT $$'
    'printf "touchauth 1\nresult success\n"; kill -ABRT $$'
)
i=0
for body in "${steps[@]}"; do
    fake "crash$i" <<<"$body"
    case $body in *ABRT*) sig=6 ;; *) sig=11 ;; esac
    fault_case "crash$i" "helper killed by signal $sig"
    i=$((i + 1))
done
fake closes_first <<<'exec >&-; cat > /dev/null; exit 0'
fault_case closes_first "helper protocol error: missing header"
fake closes_then_success <<<'cat > /dev/null; echo "touchauth 1"; exec >&-; sleep 0.2; exit 0'
fault_case closes_then_success "helper protocol error: no result"
# It reads the request only after answering: had it exited without reading, the module's write
# could meet a closed pipe on a loaded machine (EPIPE: systemCancel, seen once), a race of the
# fake, not what this control is about.
fake exits_early_success <<<'printf "touchauth 1\nresult success\n"; cat > /dev/null; exit 0'
service f_exits_early_success "auth required $MODULE helper=$FH/exits_early_success print_dir=$T/prints debug"
PAM_RUNNER= pam f_exits_early_success "$TUSER" ""
check "(control) a fake helper that answers success before reading the request is believed" succeeded

# The real helper with the sensor failing under it, mid-scan: the sensor was opened and the scan
# under way (not "cannot open"), so the helper's own line is libfprint's error for that scan
# ("<driver>/<id>: <message>", PamVerify.swift), and the scan's charged strike is given back.
# (socat writes the datagrams with no newline between them: the pattern is not anchored to lines.)
scan_failed() { grep -qE "touchauth\[[0-9]+\]: virtual_device/0: $1" "$T/syslog"; }
strikes_zero() { grep -qx "strikes 0" "$STATEF"; }
fresh_state
: > "$T/syslog"
pam solo "$TUSER" "" "SLEEP 300" "UNPLUG" "SCAN tu-right-index"
check "sensor unplugged mid-scan: no success" denied
check "...the password path" unavail
OUT="$OUT
syslog: $(cat "$T/syslog")"
check "...syslog: the scan's error, the device removed" scan_failed "This device has been removed from the system\."
check "...the scan without a verdict costs no strike" strikes_zero
FAULTS=$((FAULTS + 1))
: > "$T/syslog"
pam solo "$TUSER" "" "ERROR 4" "SCAN tu-right-index"
check "sensor busy (FP_DEVICE_ERROR_BUSY) mid-scan: no success" denied
check "...the password path" unavail
OUT="$OUT
syslog: $(cat "$T/syslog")"
check "...syslog: the scan's error, the device busy" scan_failed "The device is still busy with another operation"
check "...the scan without a verdict costs no strike" strikes_zero
FAULTS=$((FAULTS + 1))
# Held by someone else: the socket path is taken (a directory squats it), so the sensor cannot open.
rm -f "$SOCK"; mkdir "$SOCK"; touch "$SOCK/x"
: > "$T/syslog"
pam solo "$TUSER" "" 2> /dev/null
check "sensor cannot be opened (its path is held): no success" denied
check "...the password path" unavail
check "...syslog: cannot open" logged "cannot open"
FAULTS=$((FAULTS + 1))
rm -rf "$SOCK"

echo "# valgrind memcheck on the module (real helper and sensor; a crashing helper)"
if command -v valgrind > /dev/null; then
    fake crash_vg <<<'cat > /dev/null; printf "touchauth 1\ninfo x\n"; kill -SEGV $$'
    service vg_crash "auth required $MODULE helper=$FH/crash_vg print_dir=$T/prints"
    service vg_timeout "auth required $MODULE $ARGS timeout=1"
    vg() {  # vg NAME SERVICE SCANS...: pamtester under memcheck
        local name=$1 svc=$2; shift 2
        rm -f "$SOCK"
        local sender=""
        if [ $# -gt 0 ]; then python3 "$E2E/vsensor.py" "$SOCK" "$@" > /dev/null 2>&1 & sender=$!; fi
        setsid -w env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$T/pam.d" \
            PAM_WRAPPER_DISABLE_DEEPBIND=1 valgrind -q --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite --child-silent-after-fork=yes \
            pamtester -v -I tty=:0 "$svc" "$TUSER" authenticate < /dev/null > "$T/vg.out" 2>&1
        local rc=$?
        [ -n "$sender" ] && { kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null; }
        OUT=$(cat "$T/vg.out")
        # Under valgrind pam_wrapper leaves its /tmp/pam.X copy: remove ours (pid file).
        for pid in $(grep -o '==[0-9]*==' "$T/vg.out" | tr -d = | sort -u) $(sed -n 's/^PWRAP_[A-Z]*\[[^(]*(\([0-9]*\))\].*/\1/p' "$T/vg.out" | sort -u); do
            for d in /tmp/pam.?; do [ "$(cat "$d/pid" 2>/dev/null)" = "$pid" ] && rm -rf "$d"; done
        done
        check "valgrind $name: 0 errors, 0 definitely lost (rc $rc)" test "$rc" -ne 99 -a -z "$(grep '==[0-9]*== ' "$T/vg.out")"
        VG_RUNS=$((${VG_RUNS:-0} + 1))
    }
    vg match solo "SCAN tu-right-index"
    check "...match under valgrind succeeds" succeeded
    vg wrong-fingers solo "SCAN x" "SCAN x" "SCAN x"
    check "...three wrong fingers: PAM_MAXTRIES" has "$MSG_MAXTRIES"
    fresh_state
    vg timeout vg_timeout
    vg crash vg_crash
    check "...crash: the password path" has "$MSG_UNAVAIL"
    vg unplug solo "SLEEP 300" "UNPLUG"
    fresh_state
else
    check "valgrind installed" false
fi

echo "faults tried: $FAULTS; grants where none may be: $GRANTS; valgrind runs: ${VG_RUNS:-0}"
check "no grant in any case that must be refused" test "$GRANTS" -eq 0
summary
