#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing but the right finger opens the door (issue 6), end to end with pamtester under
# pam_wrapper, the real helper and libfprint's virtual sensor: hostile user names, unsafe print
# and state files (links, foreign owners, writable modes), faults the fake-helper suite does not
# have (a helper that is not executable, crashes at each protocol step, closes its output first,
# the sensor unplugged or busy mid-scan), the socket's mode, and valgrind memcheck on the module.
# In every case where a broken check could let someone in, a matching scan is sent anyway: the
# case passes only if that scan does NOT authenticate. Each case is one check: everything it
# must show (no success, the PAM code, the log line, the sensor) is one verdict.
# The common setup (the user's print, the services, the fake helpers, the syslog capture) is
# shared; each case (case_ of lib.sh) starts from a fresh state file and puts back what it
# tampered with, so it passes alone and `scripts/test.sh security:REGEX` runs only what it picks.
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
TUID=$(id -u "$TUSER")
STATEF="$T/state/$TUID"   # (fresh_state: tests/e2e/kit/state.sh, whose STATE is $T/state)
syslog_start
PAM_RUNNER=in_syslog_ns
trap 'syslog_stop; rm -rf "$T"' EXIT
FAULTS=0
unavail() { has "$MSG_UNAVAIL"; }
MSG_UNKNOWN="User not known to the underlying authentication module"
# verdict WHAT... : each WHAT a condition of the last run; all must hold. Those that do not are
# added to OUT, so the failure says which. WHAT: success, denied, unknown, unavail,
# unopened (never_armed), out:TEXT (in the output), log:TEXT (in the syslog), strikes0 (the
# state file says 0: field, tests/e2e/kit/state.sh).
verdict() {
    local bad="" w
    for w in "$@"; do
        case $w in
            success) succeeded || bad+=" not-authenticated" ;;
            denied) succeeded && bad+=" AUTHENTICATED" ;;
            unknown) has "$MSG_UNKNOWN" || bad+=" not-PAM_USER_UNKNOWN" ;;
            unavail) unavail || bad+=" not-PAM_AUTHINFO_UNAVAIL" ;;
            unopened) never_armed || bad+=" sensor-armed" ;;
            out:*) has "${w#out:}" || bad+=" output-lacks:'${w#out:}'" ;;
            log:*) logged "${w#log:}" || bad+=" syslog-lacks:'${w#log:}'" ;;
            strikes0) [ "$(field strikes)" = 0 ] || bad+=" strikes-not-0" ;;
        esac
    done
    [ -z "$bad" ] || { OUT+=$'\n'"-> got:$bad"$'\n'"syslog: $(cat "$T/syslog")"; return 1; }
}

control() {
    fresh_state
    pam solo "$TUSER" "" "SCAN tu-right-index"
    check "(control) the right finger authenticates" succeeded
    check "the helper has no RUNPATH (\$ORIGIN would make it look for libraries beside itself as root)" \
        bash -c "! readelf -d '$HELPER' | grep -qE 'RUNPATH|RPATH'"
}
case_ "control: the enrolled finger succeeds with this setup" control

# user names: from PAM, checked before any path or spawn (a case a name: "user NAME")
unknown_user() {  # unknown_user NAME
    fresh_state
    : > "$T/syslog"
    pam solo "$1" "" "SCAN tu-right-index"
    check "$CASE: refused as unknown (PAM_USER_UNKNOWN), no success, the sensor never armed" \
        verdict unknown denied unopened
}
long=$(printf 'u%.0s' $(seq 300))
for name in "../root" "$TUSER/../root" "$long" $'touchauth-test\nroot' "no-such-user-touchauth" \
    "Zoë-ünïcödé" "用户" "." ".." $'bell\a' "$TUSER "; do
    case_ "user $(printf '%q' "$name" | cut -c1-40)" unknown_user "$name"
done
# The helper's own check, with a forged request (no module in between).
forged_name() {  # forged_name NAME
    : > "$T/syslog"
    OUT=$(printf 'touchauth-request 1\nuser %s\nservice solo\nfallback none\narg config=%s\nend\n' \
        "$1" "$CONF" | in_syslog_ns "$HELPER" pam-verify)
    check "$CASE: systemCancel, syslog says why" \
        verdict "out:result systemCancel" "log:refusing unknown or malformed user name"
}
for name in "../root" "$TUSER/x" "no-such-user-touchauth"; do
    case_ "helper, forged request for '$name'" forged_name "$name"
done

# user names getpwnam knows: the module's own check is all that refuses them
# A private mount namespace whose /etc/passwd has users named with a control byte, with 257
# bytes (over the limit, 256), with 256 bytes (the longest allowed) and a good one; each has a
# print directory (but the 256 bytes one: no file name is that long), and the helper is a fake
# that records it ran and answers success. So only the name check stands between those names
# and a success. (glibc's files backend returns such names: tried.)
NAMES_HELPER="$T/names-helper"
printf '#!/bin/sh\ntouch %s\nprintf "touchauth 1\\nresult success\\n"\ncat > /dev/null\n' "$T/names-ran" > "$NAMES_HELPER"
chmod 0755 "$NAMES_HELPER"
CTL1=$'ta\001ctl' ESC=$'ta\033esc' LONG257=$(printf 'v%.0s' $(seq 257)) LONG256=$(printf 'w%.0s' $(seq 256))
SLASH=ta/slash  # its print directory $T/nprints/ta/slash exists: only the name check refuses it
cp /etc/passwd "$T/passwd"
uid=61901
for n in "$CTL1" "$ESC" "$LONG257" "$LONG256" ta-good "$SLASH"; do
    printf '%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "$n" "$uid" "$uid" >> "$T/passwd"
    uid=$((uid + 1))
    [ "$n" = "$LONG256" ] || mkdir -p "$T/nprints/$n"
done
chmod 0644 "$T/passwd"
passwd_ns() { unshare -m sh -c 'mount --bind "$1" /etc/passwd || exit 125; shift; exec "$@"' sh "$T/passwd" "$@"; }
OUT=$(passwd_ns getent passwd "$CTL1" "$LONG257" ta-good "$SLASH" | cut -d: -f3 | paste -sd ' ')
check "(setup) getpwnam finds them in that namespace" test "$OUT" = "61901 61903 61905 61906"
service names "auth required $MODULE helper=$NAMES_HELPER print_dir=$T/nprints debug"
names_case() {  # names_case NAME: pamtester for NAME in that namespace (the checks follow)
    fresh_state
    rm -f "$T/names-ran"; : > "$T/syslog"
    PAM_RUNNER=passwd_ns pam names "$1" ""
}
helper_ran() { [ -e "$T/names-ran" ]; }
good_name() {
    names_case ta-good
    check "(control) a good name there: the fake helper runs, its success is believed" \
        eval 'helper_ran && verdict success'
}
case_ "getpwnam knows it: (control) a good name" good_name
bad_name() {  # bad_name NAME
    names_case "$1"
    check "$CASE: PAM_USER_UNKNOWN, 'invalid user name', the helper never started" \
        eval '! helper_ran && verdict unknown denied "out:invalid user name"'
}
for n in "$CTL1" "$ESC" "$LONG257" "$SLASH"; do
    case_ "user $(printf '%q' "$n" | cut -c1-20) (${#n} bytes) in /etc/passwd" bad_name "$n"
done
longest_name() {
    names_case "$LONG256"
    check "(control) user of 256 bytes (the longest allowed): past the name check (no print directory: the password)" \
        eval '! helper_ran && verdict unavail denied && lacks "invalid user name"'
}
case_ "getpwnam knows it: (control) the longest name allowed" longest_name

# print and state files: links, owners, modes (a case each: "TAMPER" and "UNDO" the command lines
# that make the case and put things back)
cp -p "$PRINT" "$T/print.orig"
restore_print() { rm -f "$PRINT"; cp -p "$T/print.orig" "$PRINT"; }
unsafe_print() {  # unsafe_print LOG-TEXT TAMPER UNDO: the print was tampered with; a matching scan must fail
    fresh_state
    eval "$2"
    : > "$T/syslog"
    pam solo "$TUSER" "" "SCAN tu-right-index"
    check "$CASE: no success, the password next (PAM_AUTHINFO_UNAVAIL), syslog: $1" \
        verdict denied unavail "log:$1"
    FAULTS=$((FAULTS + 1))
    eval "$3"
}
case_ "print file is a symlink" unsafe_print "a symbolic link" \
    'mv "$PRINT" "$T/print.elsewhere"; ln -s "$T/print.elsewhere" "$PRINT"' 'rm -f "$PRINT" "$T/print.elsewhere"; restore_print'
case_ "print file has a second hard link" unsafe_print "has other hard links" \
    'ln "$PRINT" "$T/print.hardlink"' 'rm -f "$T/print.hardlink"'
case_ "print file owned by the user" unsafe_print "not owned by root" 'chown "$TUSER" "$PRINT"' restore_print
case_ "print file writable by others" unsafe_print "writable by group or others" 'chmod 0666 "$PRINT"' restore_print
case_ "print directory writable by others" unsafe_print "writable by group or others" \
    'chmod 0777 "$T/prints/$TUSER/virtual_device"' 'chmod 0700 "$T/prints/$TUSER/virtual_device"'
case_ "the user's print directory owned by the user" unsafe_print "not owned by root" \
    'chown "$TUSER" "$T/prints/$TUSER"' 'chown root "$T/prints/$TUSER"'
print_dir_symlink() {
    fresh_state
    mv "$T/prints/$TUSER" "$T/prints-real"; ln -s "$T/prints-real" "$T/prints/$TUSER"
    : > "$T/syslog"
    pam solo "$TUSER" "" "SCAN tu-right-index"
    check "the user's print directory is a symlink: no success, not followed (no prints: the helper is not started)" \
        verdict denied unopened
    rm "$T/prints/$TUSER"; mv "$T/prints-real" "$T/prints/$TUSER"
    pam solo "$TUSER" "" "SCAN tu-right-index"
    check "(control) restored prints authenticate again" succeeded
}
case_ "the user's print directory is a symlink" print_dir_symlink

unsafe_state() {  # unsafe_state TAMPER UNDO: the state was tampered with: locked, the sensor never armed
    fresh_state
    eval "$1"
    : > "$T/syslog"
    pam solo "$TUSER" "" "SCAN tu-right-index"
    check "$CASE: no success (counts as locked), the sensor never armed, syslog: fingerprint locked" \
        verdict denied unopened "log:fingerprint locked until the password is used"
    FAULTS=$((FAULTS + 1))
    eval "$2"
    fresh_state
}
printf 'touchauth-state 1\nstrikes 0\nlocked_at -\npassword_at -\npassword_boot_id -\nprints_hash -\n' > "$T/state.good"
chmod 0600 "$T/state.good"
case_ "state file is a symlink" unsafe_state 'ln -s "$T/state.good" "$STATEF"' :
case_ "state file has a second hard link" unsafe_state \
    'cp -p "$T/state.good" "$STATEF"; ln "$STATEF" "$T/state.hard"' 'rm -f "$T/state.hard"'
case_ "state file owned by the user" unsafe_state 'cp -p "$T/state.good" "$STATEF"; chown "$TUSER" "$STATEF"' :
case_ "state file writable by group and others" unsafe_state 'cp -p "$T/state.good" "$STATEF"; chmod 0622 "$STATEF"' :
case_ "state directory writable by others" unsafe_state 'chmod 0777 "$T/state"' 'chmod 0700 "$T/state"'
case_ "state directory is a symlink" unsafe_state \
    'mkdir -m 0700 "$T/state.real"; mv "$T/state" "$T/state.moved"; ln -s "$T/state.real" "$T/state"' \
    'rm "$T/state"; mv "$T/state.moved" "$T/state"; rm -rf "$T/state.real"'
planted_tmp() {
    # A planted link where the helper writes: the temporary and lock names are opened O_NOFOLLOW.
    fresh_state; rm -f "$T/victim"; touch "$T/victim"; ln -s "$T/victim" "$STATEF.tmp"
    pam solo "$TUSER" "" "SCAN wrong-finger" "SCAN wrong-finger" "SCAN wrong-finger"
    check "a symlink planted at the state's temporary name: no success, the file it points to untouched" \
        eval 'verdict denied && test ! -s "$T/victim"'
    fresh_state
}
case_ "a symlink planted at the state's temporary name" planted_tmp

# config files the helper reads (its own parser; the shim's: pam/tests/test_config_files_perms.sh)
user_conf() {
    fresh_state
    cp "$CONF" "$T/user.conf"; chown "$TUSER" "$T/user.conf"
    OUT=$("$HELPER" config-dump --config "$T/user.conf" 2>&1)
    check "helper refuses a config file owned by a user" has "not owned by root"
    service userconf "auth required $MODULE config=$T/user.conf debug"
    pam userconf "$TUSER" "" "SCAN tu-right-index"
    check "a user-owned config through PAM: no success, the password path" verdict denied unavail
}
case_ "a config file owned by a user (the helper, and through PAM)" user_conf
config_modes() {
    rm -f "$T/gw.conf" "$T/link.conf"
    cp "$CONF" "$T/gw.conf"; chmod 0664 "$T/gw.conf"
    OUT=$("$HELPER" config-dump --config "$T/gw.conf" 2>&1)
    check "helper refuses a group-writable config file" has "writable by group or others"
    ln -s "$CONF" "$T/link.conf"
    OUT=$("$HELPER" config-dump --config "$T/link.conf" 2>&1)
    check "helper refuses a config file that is a symlink" has "a symbolic link"
}
case_ "a config file group-writable, or a symlink" config_modes

socket_mode() {
    fresh_state
    rm -f "$SOCK"
    pam solo "$TUSER" "" > /dev/null &
    local pampid=$!
    for _ in $(seq 300); do [ -S "$SOCK" ] && break; sleep 0.01; done
    local MODE DIRMODE
    MODE=$(stat -c '%a %U' "$SOCK" 2>/dev/null)
    DIRMODE=$(stat -c '%a %U' "$(dirname "$SOCK")")
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null 2>&1
    wait "$pampid"
    OUT="socket: $MODE; directory: $DIRMODE"
    # bind(2) gives a socket 0777 & ~umask: 700 under the helper's umask 077. connect(2) needs
    # write permission, so that is "root only", as 600 would be.
    check "the helper's socket is root's with no group/other bits (umask 077)" test "$MODE" = "700 root"
    check "...in a directory only root may enter" test "$DIRMODE" = "700 root"
}
case_ "the virtual sensor's socket: 0600 in a root-only directory" socket_mode

# faults the fake-helper suite does not cover, each ending in the password (a case a fake helper:
# "fault NAME")
FH="$T/fake"; mkdir -m 0755 "$FH"
fake() {  # fake NAME: a fake helper, script on stdin
    { echo '#!/bin/sh'; cat; } > "$FH/$1"; chmod 0755 "$FH/$1"
}
fault_case() {  # fault_case LOG-TEXT (CASE: "fault NAME"): fake helper NAME must end in the password path
    local name=${CASE#fault }
    fresh_state
    service "f_$name" "auth required $MODULE helper=$FH/$name print_dir=$T/prints debug"
    PAM_RUNNER= pam "f_$name" "$TUSER" ""
    check "$CASE: no success, PAM_AUTHINFO_UNAVAIL (the password is next), logged: $1" \
        verdict denied unavail "out:$1"
    FAULTS=$((FAULTS + 1))
}
fake not_exec <<<'printf "touchauth 1\nresult success\n"'
chmod 0644 "$FH/not_exec"
case_ "fault not_exec" fault_case "is not executable"

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
    case_ "fault crash$i" fault_case "helper killed by signal $sig"
    i=$((i + 1))
done
fake closes_first <<<'exec >&-; cat > /dev/null; exit 0'
case_ "fault closes_first" fault_case "helper protocol error: missing header"
fake closes_then_success <<<'cat > /dev/null; echo "touchauth 1"; exec >&-; sleep 0.2; exit 0'
case_ "fault closes_then_success" fault_case "helper protocol error: no result"
exits_early() {
    # It reads the request only after answering: had it exited without reading, the module's write
    # could meet a closed pipe on a loaded machine (EPIPE: systemCancel, seen once), a race of the
    # fake, not what this control is about.
    fake exits_early_success <<<'printf "touchauth 1\nresult success\n"; cat > /dev/null; exit 0'
    service f_exits_early_success "auth required $MODULE helper=$FH/exits_early_success print_dir=$T/prints debug"
    PAM_RUNNER= pam f_exits_early_success "$TUSER" ""
    check "(control) a fake helper that answers success before reading the request is believed" succeeded
}
case_ "(control) a fake helper that answers success before reading the request" exits_early


# The real helper with the sensor failing under it, mid-scan: the sensor was opened and the scan
# under way (not "cannot open"), so the helper's own line is libfprint's error for that scan
# ("<driver>/<id>: <message>", PamVerify.swift), and the scan's charged strike is given back.
# (socat writes the datagrams with no newline between them: the pattern is not anchored to lines.)
scan_failed() { grep -qE "touchauth\[[0-9]+\]: virtual_device/0: $1" "$T/syslog" || { OUT+=$'\n'"syslog lacks: $1"; return 1; }; }
unplugged() {
    fresh_state
    : > "$T/syslog"
    pam solo "$TUSER" "" "SLEEP 300" "UNPLUG" "SCAN tu-right-index"
    check "sensor unplugged mid-scan: no success, the password path, syslog: the device removed, no strike" \
        eval 'verdict denied unavail strikes0 && scan_failed "This device has been removed from the system\."'
    FAULTS=$((FAULTS + 1))
}
case_ "the sensor unplugged mid-scan" unplugged
busy() {
    fresh_state
    : > "$T/syslog"
    pam solo "$TUSER" "" "ERROR 4" "SCAN tu-right-index"
    check "sensor busy (FP_DEVICE_ERROR_BUSY) mid-scan: no success, the password path, syslog: the device busy, no strike" \
        eval 'verdict denied unavail strikes0 && scan_failed "The device is still busy with another operation"'
    FAULTS=$((FAULTS + 1))
}
case_ "the sensor busy mid-scan" busy
held_path() {
    fresh_state
    # Held by someone else: the socket path is taken (a directory squats it), so the sensor cannot open.
    rm -rf "$SOCK"; mkdir "$SOCK"; touch "$SOCK/x"
    : > "$T/syslog"
    pam solo "$TUSER" "" 2> /dev/null
    check "sensor cannot be opened (its path is held): no success, the password path, syslog: cannot open" \
        verdict denied unavail "log:cannot open"
    FAULTS=$((FAULTS + 1))
    rm -rf "$SOCK"
}
case_ "the sensor's path held: it cannot be opened" held_path

# valgrind memcheck on the module (real helper and sensor; a crashing helper): a case a run
if command -v valgrind > /dev/null; then
    fake crash_vg <<<'cat > /dev/null; printf "touchauth 1\ninfo x\n"; kill -SEGV $$'
    service vg_crash "auth required $MODULE helper=$FH/crash_vg print_dir=$T/prints"
    service vg_timeout "auth required $MODULE $ARGS timeout=1"
    vg() {  # vg NAME SERVICE EXPECTED SCANS...: pamtester under memcheck (from a fresh state); EXPECTED in its output
        local name=$1 svc=$2 want=$3; shift 3
        fresh_state
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
        check "valgrind $name: 0 errors, 0 definitely lost (rc $rc), and '$want'" \
            eval '[ "$rc" -ne 99 ] && ! grep -q "==[0-9]*== " "$T/vg.out" && has "$want"'
        VG_RUNS=$((${VG_RUNS:-0} + 1))
        fresh_state
    }
    case_ "valgrind match" vg match solo "successfully authenticated" "SCAN tu-right-index"
    case_ "valgrind wrong-fingers" vg wrong-fingers solo "$MSG_MAXTRIES" "SCAN x" "SCAN x" "SCAN x"
    case_ "valgrind timeout" vg timeout vg_timeout "$MSG_UNAVAIL"
    case_ "valgrind crash" vg crash vg_crash "$MSG_UNAVAIL"
    case_ "valgrind unplug" vg unplug solo "$MSG_UNAVAIL" "SLEEP 300" "UNPLUG"
else
    check "valgrind installed" false
fi

echo "# faults tried: $FAULTS; valgrind runs: ${VG_RUNS:-0}"
summary
