#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A locked screen (issue 48, docs/POLICY.md#a-locked-screen): while the user's session is locked
# (logind's LockedHint) only the lock screen's own conversation gets the finger. Proved with:
# real `sudo` (setuid, /etc/pam.d/sudo and /etc/sudoers bind-mounted in the terminals' mount
# namespace) in tmux windows, one in the session's scope and one outside any session (GNOME's
# terminals run in user@.service); pamtester under pam_wrapper for the lock screens' services;
# the fake logind files of tests/e2e/kit/logind.sh (sd-login: the session id) and
# python3-dbusmock's logind template on a private system bus at the system bus's own path
# (/run/dbus/system_bus_socket, a tmpfs of the sandbox's mount namespace, as fprintd.sh has
# it), whose session holds LockedHint (its SetLockedHint, as GNOME Shell calls it).
# "Never armed" = the virtual sensor's socket never appeared, so the touch queued for it
# answered nothing.
source "$(dirname "$0")/../../scripts/lib.sh"
ensure_packages pamtester libpam-wrapper libpam-modules libsystemd0 python3 tmux sudo util-linux \
    dbus-daemon python3-dbusmock python3-dbus socat
source "$(dirname "$0")/lib.sh"
source "$E2E/private_bus.sh"
STARTED=$(date +%s)

for tool in tmux sudo unshare setpriv pamtester gdbus dbus-daemon socat; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
PY=/usr/bin/python3    # Debian's python: dbusmock is its package
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
CONF="$T/touchauth.conf"    # enroll() reads this one too
STATE="$T/state"
mkdir -m 0700 "$STATE"
write_config "$CONF" "helper=$HELPER" "state_dir=$STATE" "lockout_threshold=1000" \
    "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no" "timeout=8" "debug=yes"
enroll "$TUSER" right-index-finger tu-right-index
check "(setup) enroll stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"
PROMPT="Place your finger on the fingerprint reader"
FINGER="SCAN tu-right-index"
LOCKED_LINE="The screen is locked. Use your password."
SUDO_PW="password for $TUSER"

# --- the terminals: real sudo, our stack, in tmux -------------------------------------------------
W=$(mktemp -d /tmp/touchauth-locked.XXXXXX)
chmod 0755 "$W"
mkdir -m 0777 "$W/u"
TMUX_SOCK="$W/tmux.sock"
LINE="auth [success=done abort=die default=ignore] $MODULE config=$CONF debug"
printf '%s\n' "$LINE" "auth required pam_unix.so try_first_pass nodelay" \
    "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-sudo"
printf '%s\n' 'Defaults !lecture, timestamp_timeout=0' 'root ALL=(ALL:ALL) ALL' \
    "$TUSER ALL=(root) ALL" > "$T/sudoers"
chmod 0440 "$T/sudoers"

# --- the fake logind's files: session 7, the user's local wayland session on seat0 -------------
SID=7
RS="$T/rs"
LOGIND=$RS logind_front "$SID" "$TUID" TYPE=wayland VTNR=2
SCOPE="$CG/user.slice/user-$TUID.slice/session-$SID.scope"
# Where GNOME runs its terminals: the user's service manager, outside any session.
APPCG="$CG/user.slice/user-$TUID.slice/user@$TUID.service/app.slice/vte-spawn-ta.scope"
OURS=""
for d in "$APPCG" "$CG/user.slice/user-$TUID.slice/user@$TUID.service/app.slice" \
    "$CG/user.slice/user-$TUID.slice/user@$TUID.service" "$SCOPE" "$CG/user.slice/user-$TUID.slice" \
    "$CG/user.slice"; do [ -d "$d" ] || OURS+=" $d"; done
for d in "$SCOPE" "$APPCG"; do
    [ -d "$d" ] && { echo "$d exists already: not ours to use"; echo "0 passed, 1 failed"; exit 1; }
done
mkdir -p "$SCOPE" "$APPCG"
cg_remove() {  # cg_remove DIR: waits (up to 2 s) for DIR's processes to end, moves any left, rmdir
    local p
    for _ in $(seq 100); do [ -s "$1/cgroup.procs" ] || break; sleep 0.02; done
    for p in $(cat "$1/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done
    rmdir "$1" 2>/dev/null
}
PIDS=()
LOGIND_PID=""
cleanup() {
    tm kill-server 2>/dev/null
    [ -z "${SYSLOG_PID:-}" ] || syslog_stop
    [ -z "$LOGIND_PID" ] || kill "$LOGIND_PID" 2>/dev/null
    local i d
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[i]}" 2>/dev/null; done
    for d in $OURS; do [ -d "$d" ] && cg_remove "$d"; done
    rm -rf "$W" "$T"
}
trap cleanup EXIT

# --- the system bus at its own path, logind (dbusmock) on it ---------------------------------------
syslog_start  # the helper's log: what logind answered, and why the finger was not offered
run_dbus_dir
mount -t tmpfs -o mode=0755,size=1m touchauth-locked /run/dbus ||
    { echo "cannot mount a tmpfs on /run/dbus"; echo "0 passed, 1 failed"; exit 1; }
private_bus "$T" "touchauth-locked-$$" unix:path=/run/dbus/system_bus_socket ||
    { echo "no private bus: $(cat "$T/bus.log")"; echo "0 passed, 1 failed"; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS=$BUS
has_owner() {
    gdbus call --system -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.NameHasOwner \
        org.freedesktop.login1 2>/dev/null | grep -q true
}
# logind_up: dbusmock's logind on the bus with session $SID of the user (LockedHint false).
logind_up() {
    [ -n "$LOGIND_PID" ] && return 0
    $PY -m dbusmock --system --template logind > "$T/logind.log" 2>&1 &
    LOGIND_PID=$!
    for _ in $(seq 200); do has_owner && break; sleep 0.05; done
    gdbus call --system -d org.freedesktop.login1 -o /org/freedesktop/login1 -m org.freedesktop.DBus.Mock.AddSession \
        "$SID" seat0 "$TUID" "$TUSER" true > /dev/null 2>&1
}
# logind_down: logind leaves the bus (its name has no owner).
logind_down() {
    [ -n "$LOGIND_PID" ] || return 0
    kill "$LOGIND_PID" 2>/dev/null; wait "$LOGIND_PID" 2>/dev/null; LOGIND_PID=""
    for _ in $(seq 200); do has_owner || return 0; sleep 0.05; done
}
# hint true|false: the session's SetLockedHint, as the lock screen calls it; HINT_NOW reads it back.
hint() {
    gdbus call --system -d org.freedesktop.login1 -o "/org/freedesktop/login1/session/$SID" \
        -m org.freedesktop.login1.Session.SetLockedHint "$1" > /dev/null 2>&1
}
hint_now() {
    gdbus call --system -d org.freedesktop.login1 -o "/org/freedesktop/login1/session/$SID" \
        -m org.freedesktop.DBus.Properties.Get org.freedesktop.login1.Session LockedHint 2>&1
}
logind_up
OUT=$(hint true && hint_now)
check "(setup) dbusmock's logind: session $SID's SetLockedHint sets its LockedHint" has "<true>"
hint false

# run-in CGROUP COMMAND...: COMMAND in a private mount namespace whose /run/systemd is the fake
# logind's, /etc/pam.d/sudo and /etc/sudoers ours, /dev/log the suite's listener, in CGROUP.
cat > "$W/run-in" <<EOF
#!/bin/sh
cg=\$1
shift
exec unshare -m --propagation private sh -c '
    mount --bind "$RS" /run/systemd || exit 125
    mount --bind "$T/pam-sudo" /etc/pam.d/sudo || exit 125
    mount --bind "$T/sudoers" /etc/sudoers || exit 125
    [ "$SYSLOG_SOCK" = /dev/log ] || mount --bind "$SYSLOG_SOCK" /dev/log || exit 125
    echo \$\$ > "\$1/cgroup.procs" || exit 125
    shift; exec "\$@"' sh "\$cg" "\$@"
EOF
chmod 0755 "$W/run-in"

shell_as() {  # an interactive shell of user $1, nothing inherited (no SSH_*, no DISPLAY)
    echo "setpriv --reuid=$1 --regid=$1 --init-groups env -i HOME=$W/u TERM=screen" \
         "PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='\$ ' bash --norc --noprofile"
}
# The tmux server and window `in` in the session's scope; window `out` moved to GNOME's
# terminals' cgroup (outside any session).
"$W/run-in" "$SCOPE" tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s t -n in -x 160 -y 50 "$(shell_as "$TUID")"
tm new-window -d -t t -n out "$(shell_as "$TUID")"
tm set-option -g history-limit 0 > /dev/null
echo "$(tm display-message -p -t t:out '#{pane_pid}')" > "$APPCG/cgroup.procs"
wait_for in '$' 5; wait_for out '$' 5
check "(setup) window in: in session $SID (its scope); window out: outside any session (user@.service)" \
    eval 'grep -qx "0::/user.slice/user-$TUID.slice/session-$SID.scope" /proc/$(tm display-message -p -t t:in "#{pane_pid}")/cgroup &&
          grep -q "user@$TUID.service/app.slice" /proc/$(tm display-message -p -t t:out "#{pane_pid}")/cgroup'

# sudo_case WINDOW: `sudo touch $W/u/ran` typed in WINDOW with the enrolled finger's touch queued;
# the password typed when sudo asks for it. OUT: the window's text; RAN_BY: finger|password|no.
sudo_case() {
    local win=$1 sender typed=0 deadline
    rm -f "$SOCK" "$W/u/ran" "$W/u/rc"
    : > "$T/syslog"
    tm send-keys -t "t:$win" "clear; (sudo touch $W/u/ran; exit \$?); echo \$? > $W/u/rc" Enter
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null 2>&1 & sender=$!
    deadline=$(($(now_ms) + 20000))
    until [ -s "$W/u/rc" ] || [ "$(now_ms)" -gt "$deadline" ]; do
        if [ "$typed" = 0 ] && screen "$win" | grep -q "$SUDO_PW"; then
            SCREEN_AT_PASSWORD=$(screen "$win")
            tm send-keys -t "t:$win" -l "$TPASS"; tm send-keys -t "t:$win" Enter; typed=1
        fi
        sleep 0.05
    done
    kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null
    OUT=$(screen "$win")
    RAN_BY=no
    [ -e "$W/u/ran" ] && { [ "$typed" = 1 ] && RAN_BY=password || RAN_BY=finger; }
    OUT+=$'\n'"(ran by: $RAN_BY; sensor armed: $([ -e "$SOCK" ] && echo yes || echo no))"
    grep -ao 'logind answered [^<]*' "$T/syslog" | tail -n 1 | sed 's/^/#   helper: /'
}
# refused_locked: our line, then sudo's own password prompt; no finger prompt; never armed; the
# password ran the command; the helper logged why.
refused_locked() {
    local bad=""
    has "$LOCKED_LINE" || bad+=" no-locked-line"
    lacks "$PROMPT" || bad+=" finger-prompt-shown"
    never_armed || bad+=" sensor-armed"
    [ "$RAN_BY" = password ] || bad+=" ran-by-$RAN_BY"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected the password at once, got:$bad"; return 1; }
}
offered() {
    local bad=""
    has "$PROMPT" || bad+=" no-finger-prompt"
    lacks "$LOCKED_LINE" || bad+=" locked-line-shown"
    [ "$RAN_BY" = finger ] || bad+=" ran-by-$RAN_BY"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected the finger, got:$bad"; return 1; }
}

# =================================================================================================
locked_in_session() {
    logind_up; hint true
    sudo_case in
    check "1. locked: sudo in a terminal of the session gets the password at once, our line says why" refused_locked
    check "1. ...the helper logged the reason (LOG_NOTICE)" logged "the screen is locked (logind session $SID): the password"
    hint false
}
case_ "1. locked: sudo in a terminal of the session" locked_in_session

locked_outside() {
    logind_up; hint true
    sudo_case out
    check "2. locked: sudo in a terminal outside any session (GNOME's) gets the password at once: the user's display session decides" refused_locked
    check "2. ...the helper logged the reason" logged "the screen is locked (logind session $SID): the password"
    hint false
}
case_ "2. locked: sudo in a terminal outside the session (GNOME's terminals)" locked_outside

unlocked() {
    logind_up; hint false
    sudo_case in
    check "3. unlocked: sudo gets the finger as before (session's terminal)" offered
    check "3. ...logind was asked and said not locked" logged "logind answered for session $SID"
    sudo_case out
    check "3. unlocked: sudo gets the finger as before (outside the session)" offered
}
case_ "3. unlocked: the finger as before" unlocked

no_logind() {
    logind_down
    sudo_case in
    check "4. logind not on the bus: sudo gets the finger as before (nothing says locked)" offered
    check "4. ...the helper found logind not running" logged "logind answered for session $SID (waited"
    OUT=$(grep -a 'logind answered' "$T/syslog")
    check "4. ...and said so (not running)" has "not running"
    logind_up
}
case_ "4. logind not on the bus: as before" no_logind

# --- the lock screens' own conversations (pamtester in the session's scope, a display item) ------
PAM_RUNNER="$W/run-in $SCOPE"
pam_offered() {
    local bad=""
    has "$PROMPT" || bad+=" no-prompt"
    succeeded || bad+=" not-authenticated"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected the finger, got:$bad"; return 1; }
}
pam_refused() {
    local bad=""
    has "$LOCKED_LINE" || bad+=" no-locked-line"
    lacks "$PROMPT" || bad+=" prompt-shown"
    never_armed || bad+=" sensor-armed"
    succeeded && bad+=" AUTHENTICATED-by-the-touch"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected the password, got:$bad"; return 1; }
}
for svc in vlock kde-fingerprint gdm-fingerprint i3lock polkit-1; do service "$svc" "auth required $MODULE config=$CONF debug"; done
lock_screens() {
    logind_up; hint true
    pam vlock "$TUSER" "" "$FINGER"
    check "5. locked: the console locker's conversation (vlock) keeps the finger; a touch unlocks" pam_offered
    pam kde-fingerprint "$TUSER" "" "$FINGER"
    check "5. locked: Plasma's lock screen's finger (kde-fingerprint) keeps it" pam_offered
    pam i3lock "$TUSER" "" "$FINGER"
    check "5. locked: i3lock's empty Enter keeps the finger" pam_offered
    PAM_RUNNER="$W/run-in $SCOPE env GDM_SESSION_FOR_REAUTH=1" pam gdm-fingerprint "$TUSER" "" "$FINGER"
    check "5. locked: GDM's unlock (gdm-fingerprint with GDM_SESSION_FOR_REAUTH=1) keeps the finger" pam_offered
    pam gdm-fingerprint "$TUSER" "" "$FINGER"
    check "5. locked: gdm-fingerprint without GDM_SESSION_FOR_REAUTH (not an unlock) -> the password" pam_refused
    pam polkit-1 "$TUSER" "" "$FINGER"
    check "5. locked: a polkit agent's request in the session -> the password" pam_refused
    hint false
}
case_ "5. locked: the lock screen's own conversations keep the finger, nothing else" lock_screens

echo "# run time $(($(date +%s) - STARTED)) s"
summary
