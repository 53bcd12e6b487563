#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GNOME's lock screen for real (issue 36): the real gnome-shell (Debian 12's 43) runs headless
# (mutter's virtual monitor, software rendering) as the test user, locks its screen, and is
# unlocked by the finger or the password, through:
# - a GDM stand-in (clients/gdmstandin.py) on a private system bus: the shell's libgdm calls
#   OpenReauthenticationChannel and talks UserVerifier to it peer to peer; it runs one
#   clients/gdmworker.c -1 process per conversation, the real libpam on gdm-password and
#   gdm-fingerprint under pam_wrapper (the suite's own pam.d), in the user's session scope as
#   GDM's reauthentication workers are (they are children of the session's own worker);
# - the real fprintd with libfprint's virtual device on that bus (the shell starts
#   gdm-fingerprint only when fprintd's GetDefaultDevice names a reader), a dbusmock polkit for
#   it, as fprintd.sh does;
# - a fake logind: /run/systemd files for our module's presence rules (session 43: the user's
#   local wayland session, active on seat0), python-dbusmock's logind on the bus for the shell
#   (its session's Lock/Unlock signals; UnlockSession emits Unlock, as GDM's unlock is done);
# - a session bus of the user's with a dbusmock systemd user manager that answers GetUnit, and
#   the shell in its user unit's cgroup (user@UID.service/session.slice/org.gnome.Shell@wayland
#   .service, where GNOME 43 runs it): the shell then asks systemd for ibus instead of forking
#   ibus-daemon itself, a fork whose child runs JavaScript and hung the shell at start-up
#   (NOTES.md).
# The user's keys come from a Clutter virtual keyboard (the shell's own input path: idle
# monitor, key focus, the entry's activate); what the shell shows is read from its actors
# through org.gnome.Shell.Eval (--unsafe-mode) and from screenshots with tesseract.
source "$(dirname "$0")/lib.sh"
source "$E2E/clients/locker_x11.sh"    # gui_packages
source "$E2E/private_bus.sh"
source "$E2E/kit/gdm.sh"               # the test user and GDM's two stacks, as clients_gdm.sh has them
STARTED=$(date +%s)
OUT=""
# On a fresh Debian 12 the packages pull libpam-systemd (gnome-shell -> dbus-user-session), whose
# postinst runs pam-auth-update and adds pam_systemd to common-session: /etc/pam.d and
# pam-auth-update's own state (/var/lib/pam) are saved first and put back after, as they were.
PAMD_BEFORE=$(cd /etc/pam.d && md5sum -- * | sort)
PAMSAVE=$(mktemp -d /tmp/touchauth-gnome-pam.XXXXXX)
cp -a /etc/pam.d "$PAMSAVE/pam.d" && { [ ! -d /var/lib/pam ] || cp -a /var/lib/pam "$PAMSAVE/lib-pam"; } ||
    { echo "cannot save /etc/pam.d"; echo "0 passed, 1 failed"; exit 1; }
gui_packages gnome-shell fprintd python3-dbusmock python3-dbus python3-gi gir1.2-glib-2.0 dbus-daemon \
    libpam-wrapper tesseract-ocr tesseract-ocr-eng util-linux python3 gcc libpam0g-dev sudo tmux ||
    { echo "cannot install gnome-shell"; echo "0 passed, 1 failed"; exit 1; }
if [ "$(cd /etc/pam.d && md5sum -- * | sort)" != "$PAMD_BEFORE" ]; then
    echo "# installing the packages changed /etc/pam.d ($(cd /etc/pam.d && md5sum -- * | sort | diff - <(echo "$PAMD_BEFORE") | sed -n 's/^< [0-9a-f]*  //p' | tr '\n' ' ')): put back"
    rm -rf /etc/pam.d && cp -a "$PAMSAVE/pam.d" /etc/pam.d
    if [ -d "$PAMSAVE/lib-pam" ]; then rm -rf /var/lib/pam && cp -a "$PAMSAVE/lib-pam" /var/lib/pam; fi
fi
rm -rf "$PAMSAVE"
OUT=$(cd /etc/pam.d && md5sum -- * | sort)
check "(setup) /etc/pam.d as it was before the packages" test "$OUT" = "$PAMD_BEFORE"
for tool in gnome-shell /usr/libexec/fprintd dbus-daemon gdbus unshare setpriv tesseract; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
PY=/usr/bin/python3    # Debian's python: gi and dbusmock are its packages
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }

gdm_user
TGID=$(id -g "$TUSER")

# W: what the user's processes must reach (T is root's 0700); U: the user's home and runtime dir.
W=$(mktemp -d /tmp/touchauth-gnome.XXXXXX)
chmod 0755 "$W"
U="$W/u"
mkdir -m 0700 "$U" "$U/home" "$U/run" "$U/shots"
chown -R "$TUID:$TGID" "$U"
mkdir -m 0755 "$W/dbus"   # the system bus's own path for the helper (case 6), bound over /run/dbus
mkdir -m 0777 "$W/term"   # case 6's traces (the terminal's sudo)
run_dbus_dir
SHOTS="$U/shots"
RS="$W/rs"     # /run/systemd in the namespaces (tests/e2e/kit/logind.sh)
SID=43
LOGIND=$RS logind_front "$SID" "$TUID" TYPE=wayland VTNR=2

# The cgroups: the session's scope (GDM's reauthentication workers) and the shell's user unit.
SCOPE="$CG/user.slice/user-$TUID.slice/session-$SID.scope"
SHELL_CG="$CG/user.slice/user-$TUID.slice/user@$TUID.service/session.slice/org.gnome.Shell@wayland.service"
OURS=""
for d in "$SHELL_CG" "$CG/user.slice/user-$TUID.slice/user@$TUID.service/session.slice" \
    "$CG/user.slice/user-$TUID.slice/user@$TUID.service" "$SCOPE" "$CG/user.slice/user-$TUID.slice" \
    "$CG/user.slice"; do [ -d "$d" ] || OURS+=" $d"; done
for d in "$SCOPE" "$SHELL_CG"; do
    [ -d "$d" ] && { echo "$d exists already: not ours to use"; echo "0 passed, 1 failed"; exit 1; }
done
mkdir -p "$SCOPE" "$SHELL_CG"
# Case 6's terminal: where GNOME runs its terminals (a scope of the user's service manager,
# outside any session).
TERM_CG="$CG/user.slice/user-$TUID.slice/user@$TUID.service/app.slice/vte-spawn-ta.scope"
for d in "$CG/user.slice/user-$TUID.slice/user@$TUID.service/app.slice" "$TERM_CG"; do [ -d "$d" ] || OURS="$d $OURS"; done
mkdir -p "$TERM_CG"
cg_remove() {  # cg_remove DIR: moves what is left to the root, removes it
    local p
    for p in $(cat "$1/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done
    rmdir "$1" 2>/dev/null
}

# run-in CGROUP CMD...: CMD in a private mount namespace whose /run/systemd is $RS, in CGROUP.
cat > "$W/run-in" <<EOF
#!/bin/sh
cg=\$1
shift
exec unshare -m --propagation private sh -c '
    mount --bind "$RS" /run/systemd || exit 125
    [ ! -e "$W/bus-at-its-path" ] || mount --bind "$W/dbus" /run/dbus || exit 125
    [ -z "\${TA_TERM:-}" ] || { mount --bind "$T/pam-sudo" /etc/pam.d/sudo &&
        mount --bind "$T/sudoers" /etc/sudoers; } || exit 125
    echo \$\$ > "\$1/cgroup.procs" || exit 125
    shift; exec "\$@"' sh "\$cg" "\$@"
EOF
chmod 0755 "$W/run-in"
gdm_worker "$W/gdmworker"

# --- the stacks (tests/e2e/kit/gdm.sh) ----------------------------------------------------------
# stacks example|readme: gdm-password as gdm3 has it (common-auth with touchauth-unlock), and with
# README's `pam-auth-update --enable touchauth` too (readme: our line first in common-auth).
stacks() { if [ "$1" = readme ]; then gdm_stacks "$T/pam.d" finger; else gdm_stacks "$T/pam.d"; fi; }
stacks example
gdm_example_line "$T/pam.d"
# Case 6's sudo: our line first, then pam_unix (as terminal.sh has it), in the terminal's namespace.
printf '%s\n' "auth [success=done abort=die default=ignore] $MODULE config=$CONF debug" \
    "auth required pam_unix.so try_first_pass nodelay" "account required pam_permit.so" \
    "session required pam_permit.so" > "$T/pam-sudo"
printf '%s\n' 'Defaults !lecture, timestamp_timeout=0' 'root ALL=(ALL:ALL) ALL' "$TUSER ALL=(root) ALL" > "$T/sudoers"
chmod 0440 "$T/sudoers"

PIDS=()
SENDER=""
cleanup() {
    [ -n "$SENDER" ] && kill "$SENDER" 2>/dev/null
    tmux -S "$W/tmux.sock" kill-server 2>/dev/null
    local i
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[i]}" 2>/dev/null; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
    # what the shell and the workers left (dbus-activated helpers, the workers' helpers)
    for d in $OURS; do [ -d "$d" ] && for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null; done; done
    for d in $OURS; do [ -d "$d" ] && cg_remove "$d"; done
    rm -rf "$W" "$T"
}
trap cleanup EXIT

# --- the system bus: polkit and logind (dbusmock), fprintd, the GDM stand-in --------------------
PRIVATE_BUS_ALSO="unix:path=$W/dbus/system_bus_socket" private_bus "$T" "touchauth-gnome-$$" || { echo "no private bus: $(cat "$T/bus.log")"; echo "0 passed, 1 failed"; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS=$BUS
sys_call() { gdbus call --system "$@" > /dev/null 2>&1; }
wait_name() {  # wait_name NAME: until NAME is on the system bus (10 s)
    local _
    for _ in $(seq 200); do
        gdbus call --system -d org.freedesktop.DBus -o /org/freedesktop/DBus -m org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null |
            grep -q true && return 0
        sleep 0.05
    done
    return 1
}
$PY -m dbusmock --system --template polkitd > "$T/polkit.log" 2>&1 &
PIDS+=($!)
$PY -m dbusmock --system --template logind > "$T/logind.log" 2>&1 &
PIDS+=($!)
wait_name org.freedesktop.PolicyKit1 && wait_name org.freedesktop.login1
check "(setup) polkit and logind (dbusmock) on the private bus" test $? -eq 0
# logind's session 43 for the shell (XDG_SESSION_ID); UnlockSession emits the session's Unlock,
# as logind does.
sys_call -d org.freedesktop.login1 -o /org/freedesktop/login1 -m org.freedesktop.DBus.Mock.AddSession \
    "$SID" seat0 "$TUID" "$TUSER" true &&
sys_call -d org.freedesktop.login1 -o /org/freedesktop/login1 -m org.freedesktop.DBus.Mock.AddMethod \
    org.freedesktop.login1.Manager UnlockSession s "" \
    'objects["/org/freedesktop/login1/session/" + args[0]].EmitSignal("org.freedesktop.login1.Session", "Unlock", "", [])'
check "(setup) logind's session $SID for $TUSER" test $? -eq 0
FPSOCK="$T/fprintd-vdev.sock"   # fprintd's own virtual sensor (the shell only asks for its device)
STATE_DIRECTORY="$T/prints" FP_VIRTUAL_DEVICE="$FPSOCK" FP_DRIVERS_WHITELIST=virtual_device FP_DEVICE_EMULATION=1 \
    /usr/libexec/fprintd --no-timeout > "$T/fprintd.log" 2>&1 &
PIDS+=($!)
wait_name net.reactivated.Fprint
OUT=$(gdbus call --system -d net.reactivated.Fprint -o /net/reactivated/Fprint/Manager \
    -m net.reactivated.Fprint.Manager.GetDefaultDevice 2>&1)
check "(setup) the real fprintd answers GetDefaultDevice on the private bus" has "/net/reactivated/Fprint/Device/"
FPDEV=$(sed -n "s/^(objectpath '\(.*\)',)$/\1/p" <<< "$OUT")
OUT=$(gdbus call --system -d net.reactivated.Fprint -o "$FPDEV" -m org.freedesktop.DBus.Properties.Get \
    net.reactivated.Fprint.Device scan-type 2>&1)
SCAN_TYPE=$(sed -n "s/^(<'\(.*\)'>,)$/\1/p" <<< "$OUT")
echo "# fprintd's virtual device: scan-type '$SCAN_TYPE'"
HINT="(or place finger on reader)"
[ "$SCAN_TYPE" = swipe ] && HINT="(or swipe finger across reader)"

: > "$T/gdm.log"
# (GDM_SESSION_FOR_REAUTH=1: GDM's reauthentication workers have it, daemon/gdm-session-worker-job.c)
$PY "$E2E/clients/gdmstandin.py" "$T/gdm.log" "$SID" "$W/run-in" "$SCOPE" env GDM_SESSION_FOR_REAUTH=1 LD_PRELOAD=libpam_wrapper.so \
    PAM_WRAPPER=1 "PAM_WRAPPER_SERVICE_DIR=$T/pam.d" "$W/gdmworker" -1 > "$T/gdmstandin.out" 2>&1 &
PIDS+=($!)
wait_name org.gnome.DisplayManager
check "(setup) the GDM stand-in owns org.gnome.DisplayManager" test $? -eq 0

# --- the user's session bus, systemd's user manager (dbusmock), the shell ------------------------
AS_USER=(setpriv "--reuid=$TUID" "--regid=$TGID" --init-groups env -i "HOME=$U/home" "XDG_RUNTIME_DIR=$U/run"
    PATH=/usr/bin:/bin "USER=$TUSER" "LOGNAME=$TUSER" "DBUS_SESSION_BUS_ADDRESS=unix:path=$U/run/bus"
    "DBUS_SYSTEM_BUS_ADDRESS=$BUS" LANG=C.UTF-8)
"${AS_USER[@]}" dbus-daemon --session --nofork --address="unix:path=$U/run/bus" > "$T/session-bus.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 200); do [ -S "$U/run/bus" ] && break; sleep 0.05; done
"${AS_USER[@]}" $PY -m dbusmock --session org.freedesktop.systemd1 /org/freedesktop/systemd1 \
    org.freedesktop.systemd1.Manager > "$T/systemd-mock.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 200); do
    "${AS_USER[@]}" gdbus call --session -d org.freedesktop.systemd1 -o /org/freedesktop/systemd1 \
        -m org.freedesktop.DBus.Mock.AddMethod org.freedesktop.systemd1.Manager GetUnit s o \
        'ret = "/org/freedesktop/systemd1/unit/stand_2din"' > /dev/null 2>&1 && break
    sleep 0.05
done
check "(setup) the user's session bus, and systemd's user manager (dbusmock) on it" test -S "$U/run/bus"

SHELL_T0=$(now_ms)
"$W/run-in" "$SHELL_CG" "${AS_USER[@]}" "XDG_SESSION_ID=$SID" XDG_SESSION_TYPE=wayland XDG_CURRENT_DESKTOP=GNOME \
    LIBGL_ALWAYS_SOFTWARE=1 gnome-shell --wayland --headless --no-x11 --virtual-monitor 1280x800 \
    --wayland-display wayland-tagnome --unsafe-mode > "$T/shell.log" 2>&1 &
SHELL_PID=$!
PIDS+=($SHELL_PID)

# ev JS: org.gnome.Shell.Eval as the user; EV = the result's text (JSON.stringify'd by the caller).
ev() {
    local out
    out=$("${AS_USER[@]}" timeout 20 gdbus call --session -d org.gnome.Shell -o /org/gnome/Shell \
        -m org.gnome.Shell.Eval "$1" 2>&1)
    EV=$($PY -c 'import ast, json, sys
t = sys.argv[1].strip()
t = "(True," + t[6:] if t.startswith("(true,") else "(False," + t[7:] if t.startswith("(false,") else t
try:
    ok, v = ast.literal_eval(t)
except Exception:
    print("ERROR " + t); sys.exit(1)
if not ok:
    print("ERROR " + v); sys.exit(1)
try:
    v = json.loads(v)
except Exception:
    pass
print(json.dumps(v) if isinstance(v, (list, dict)) else v)' "$out")
}
# ev_wait JS SECONDS: until JS evaluates to true.
ev_wait() {
    local deadline=$(($(now_ms) + $2 * 1000))
    until ev "$1" && [ "$EV" = True ]; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
ev_wait '!Main.layoutManager._startingUp' 90
check "(setup) gnome-shell started headless (virtual monitor, software rendering)" test $? -eq 0
echo "#   gnome-shell $(gnome-shell --version | sed 's/GNOME Shell //') up after $(($(now_ms) - SHELL_T0)) ms"
OUT=$(grep -i 'ibus' "$T/shell.log")
check "(setup) the shell did not fork ibus-daemon itself (its systemd path instead)" lacks "ibus-daemon"

# The instrumentation: every message the auth prompt shows is recorded (AuthPrompt.setMessage,
# with its type: 0 none, 1 info, 2 hint, 3 error), and a virtual keyboard.
ev 'const AuthPrompt = imports.gdm.authPrompt; const Clutter = imports.gi.Clutter;
    global._ta = { msgs: [], kbd: Clutter.get_default_backend().get_default_seat().create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE) };
    const orig = AuthPrompt.AuthPrompt.prototype.setMessage;
    AuthPrompt.AuthPrompt.prototype.setMessage = function (m, t, w) { global._ta.msgs.push([m === null ? "" : String(m), t]); return orig.call(this, m, t, w); };
    true'
check "(setup) the auth prompt's messages are recorded, a virtual keyboard made" test "$EV" = True

JS_STATE='const s = Main.screenShield; const d = s._dialog; const a = d && d._authPrompt;
    JSON.stringify({ locked: s.locked, prompt: !!(a && d._activePage === d._promptBox),
      message: a && a._message.visible && a._message.opacity > 0 ? a._message.text : "",
      entry: !!(a && a._entry.visible && a._entry.reactive), hint: a ? a._entry.hint_text : "",
      msgs: global._ta.msgs })'
# state: ST = the lock screen's state as JSON; st FIELD prints one field.
state() { ev "$JS_STATE"; ST=$EV; }
st() { $PY -c 'import json, sys; v = json.loads(sys.argv[1])[sys.argv[2]]; print(json.dumps(v) if isinstance(v, (list, dict)) else v)' "$ST" "$1"; }
# keys KEYVAL-EXPR...: the virtual keyboard presses and releases each (a Clutter key name).
keys() {
    local js="const Clutter = imports.gi.Clutter; const GLib = imports.gi.GLib; let t = GLib.get_monotonic_time(); const k = global._ta.kbd;"
    for k in "$@"; do
        js+=" k.notify_keyval(t++, $k, Clutter.KeyState.PRESSED); k.notify_keyval(t++, $k, Clutter.KeyState.RELEASED);"
    done
    ev "$js true"
}
# type_text TEXT: the user types TEXT and Enter.
type_text() {
    local ks=() ch i
    for ((i = 0; i < ${#1}; i++)); do
        ch=${1:i:1}
        ks+=("Clutter.unicode_to_keysym($(printf '%d' "'$ch"))")
    done
    keys "${ks[@]}" Clutter.KEY_Return
}
shot() {  # shot NAME: a screenshot of the whole screen into $SHOTS/NAME.png
    rm -f "$SHOTS/$1.png"
    "${AS_USER[@]}" timeout 20 gdbus call --session -d org.gnome.Shell.Screenshot -o /org/gnome/Shell/Screenshot \
        -m org.gnome.Shell.Screenshot.Screenshot false false "$SHOTS/$1.png" > /dev/null 2>&1
}
ocr() { tesseract "$SHOTS/$1.png" - 2> /dev/null | tr -s ' \n' ' '; }
# wait_log TEXT [SECONDS]: until the GDM stand-in's log has TEXT since this case's lock.
wait_log() {
    local deadline=$(($(now_ms) + ${2:-15} * 1000))
    until log_since | grep -qF -- "$1"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}
# wait_state FIELD VALUE [SECONDS]
wait_state() {
    local deadline=$(($(now_ms) + ${3:-15} * 1000))
    while :; do
        state
        [ "$(st "$1")" = "$2" ] && return 0
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
# (listening, touch_sensor: tests/e2e/kit/gdm.sh, with $PY)
wait_listening() { local _; for _ in $(seq 300); do listening && return 0; sleep 0.05; done; return 1; }
sensor_done() { [ -n "$SENDER" ] && { wait "$SENDER" 2>/dev/null; SENDER=""; }; return 0; }
# (set_state, strikes, fresh_state: tests/e2e/kit/state.sh)
log_since() { tail -n +"$((LOG_MARK + 1))" "$T/gdm.log"; }
# lock: the screen locks (Main.screenShield.lock, as the shell's lock does), the user presses a
# key (Control: wakes the screen from its black fade, shows the prompt, types nothing).
# (A key pressed while the shield is still coming up can be lost: the user presses again.)
lock() {
    local _
    LOG_MARK=$(wc -l < "$T/gdm.log")
    ev 'global._ta.msgs = []; Main.screenShield.lock(false); true'
    wait_state locked True 10 || return 1
    for _ in 1 2 3 4 5; do
        keys Clutter.KEY_Control_L
        wait_state prompt True 3 && return 0
    done
    return 1
}
unlocked() { wait_state locked False "${1:-15}"; }
stopped_conversations() {  # no worker or helper of ours left in the session's scope
    local _
    for _ in $(seq 200); do [ -s "$SCOPE/cgroup.procs" ] || return 0; sleep 0.05; done
    return 1
}

# =================================================================================================
# Each case sets its stacks and its state, then locks the screen; it ends unlocked, with no worker
# left in the session.
# 1. lock the screen; the finger unlocks
finger_unlocks() {
    stacks example
    fresh_state
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    OUT=$ST
    check "1. the lock screen shows its prompt (Main.screenShield locked, the prompt page)" test "$(st prompt)" = True
    wait_log "[gdm-fingerprint] info: $PROMPT" 15
    OUT=$(log_since)
    check "1. the shell started gdm-password and gdm-fingerprint (fprintd offered its reader)" \
        eval 'has "call BeginVerificationForUser gdm-password | $TUSER" && has "call BeginVerificationForUser gdm-fingerprint | $TUSER"'
    check "1. ...gdm-fingerprint sent our prompt (Info)" has "signal Info gdm-fingerprint | $PROMPT"
    check "1. ...the password field is there at once (gdm-password's SecretInfoQuery)" has "signal SecretInfoQuery gdm-password | Password:"
    wait_listening
    check "1. ...the sensor is armed" listening
    wait_state message "$HINT" 10
    OUT=$ST
    check "1. the shell shows '$HINT' under the password field (our info line replaced)" \
        eval '[ "$(st message)" = "$HINT" ] && [ "$(st entry)" = True ]'
    shot armed
    OUT=$(ocr armed)
    check "1. ...the screen shows it (OCR): the hint and the password field" \
        eval 'has "or place finger on reader" || has "or swipe finger"'
    echo "#   OCR: $OUT"
    touch_sensor "$FINGER"
    unlocked 15
    OUT="$ST
$(log_since)"
    sensor_done
    check "1. the finger unlocks: the shell's shield is down" test "$(st locked)" = False
    check "1. ...by gdm-fingerprint (VerificationComplete), gdm-password stopped with SIGTERM" \
        eval 'has "signal VerificationComplete gdm-fingerprint" && has "stopping gdm-password"'
    check "1. ...no worker or helper left in the session" stopped_conversations
    check "1. ...no strike (a match)" test "$(strikes)" = 0
}
case_ "1. lock the screen; the finger unlocks" finger_unlocks

# =================================================================================================
# 2. a wrong finger shows our line; three wrong fingers, then the password
wrong_fingers() {
    stacks example
    fresh_state
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    wait_log "[gdm-fingerprint] info: $PROMPT" 15
    wait_listening
    touch_sensor "$ELSE"
    wait_log "signal Problem gdm-fingerprint" 15
    sensor_done
    wait_state message "Not recognized, try again" 10
    OUT=$ST
    check "2. a wrong finger: the shell shows our line 'Not recognized, try again'" test "$(st message)" = "Not recognized, try again"
    shot wrong
    OUT=$(ocr wrong)
    check "2. ...on the screen (OCR)" has "Not recognized"
    echo "#   OCR: $OUT"
    touch_sensor "$ELSE" "$ELSE"
    wait_log "worker gdm-fingerprint exit" 20
    sensor_done
    state
    OUT="$ST
$(log_since)"
    check "2. three wrong fingers: gdm-fingerprint ends in PAM_MAXTRIES (GDM: ServiceUnavailable with its message)" \
        eval 'has "[gdm-fingerprint] authenticate: $MSG_MAXTRIES" && has "signal ServiceUnavailable gdm-fingerprint | You reached the maximum fingerprint"'
    check "2. ...the shell showed each of our lines" \
        eval 'has "Not recognized, try again" && has "Fingerprint not recognized"'
    check "2. ...three strikes" test "$(strikes)" = 3
    check "2. ...the screen is still locked, the password field there" eval '[ "$(st locked)" = True ] && [ "$(st entry)" = True ]'
    type_text "$TPASS"
    unlocked 15
    OUT="$ST
$(log_since)"
    check "2. the password then unlocks (gdm-password's VerificationComplete)" \
        eval '[ "$(st locked)" = False ] && has "signal VerificationComplete gdm-password"'
    check "2. ...and clears the strikes (authsucc)" test "$(strikes)" = 0
    stopped_conversations
}
case_ "2. a wrong finger shows our line; three wrong fingers, then the password" wrong_fingers

# =================================================================================================
# 3. a locked-out user: our reason, and the password
# The lockout as the helper leaves it: the state file and its marker <uid>.locked ("inode ctime-s
# ctime-ns locked_at strikes", lockout.h): the module refuses at once, from the marker.
locked_out() {
    local locked_at=$(($(date +%s) - 60))
    stacks example
    fresh_state
    set_state 5 "$locked_at"
    $PY -c 'import os, sys
st = os.stat(sys.argv[1])
print(st.st_ino, st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9, sys.argv[2], 5)' "$STATE/$TUID" "$locked_at" > "$STATE/$TUID.locked"
    chmod 0600 "$STATE/$TUID.locked"
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    wait_log "worker gdm-fingerprint exit" 15
    sleep 1   # (the shell's message queue: each message is shown for a while)
    state
    OUT="$ST
$(log_since)"
    check "3. gdm-fingerprint sends our lockout reason as an error (Problem) and ends (PAM_AUTHINFO_UNAVAIL: ServiceUnavailable)" \
        eval 'has "[gdm-fingerprint] error: $LOCKED" && has "signal Problem gdm-fingerprint | $LOCKED" && has "signal ServiceUnavailable gdm-fingerprint"'
    check "3. ...the sensor was never armed" eval '! listening && ! has "[gdm-fingerprint] info: $PROMPT"'
    echo "#   3. the auth prompt's messages: $(st msgs)"
    check "3. ...the shell shows our reason (GDM's shell shows gdm-fingerprint's info lines only as its hint)" \
        eval 'st msgs | grep -qF "$LOCKED"'
    shot locked
    OUT=$(ocr locked)
    echo "#   OCR: $OUT"
    check "3. ...on the screen (OCR)" has "Too many failed attempts"
    type_text "$TPASS"
    unlocked 15
    OUT="$ST"
    check "3. the password unlocks" test "$(st locked)" = False
    check "3. ...and lifts the lockout (authsucc)" test "$(strikes)" = 0
    stopped_conversations
}
case_ "3. a locked-out user: our reason, and the password" locked_out
# Without the marker the helper decides, and its lockout line is an info line (Message.isError
# false): GDM's shell shows its hint instead. Reported, not yet changed (NOTES.md). No check.
locked_no_marker() {
    stacks example
    fresh_state
    set_state 5 "$(($(date +%s) - 60))"
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    wait_log "worker gdm-fingerprint exit" 15
    sleep 1
    state
    echo "#   3. locked, no marker (the helper's line): $(log_since | grep '^signal .* gdm-fingerprint' | tr '\n' ';')"
    echo "#   3. ...the auth prompt's messages: $(st msgs)"
    type_text "$TPASS"
    unlocked 15
    stopped_conversations
}
case_ "3. locked, no marker: the helper's line (reported)" locked_no_marker

# =================================================================================================
# 4. the password typed while the finger is armed unlocks at once
password_while_armed() {
    local fp_helper t0
    stacks example
    fresh_state
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    wait_log "[gdm-fingerprint] info: $PROMPT" 15
    wait_listening
    fp_helper=$(pgrep -x touchauth -P "$(sed -n 's/^begin gdm-fingerprint pid \([0-9]*\)$/\1/p' "$T/gdm.log" | tail -n 1)" 2>/dev/null)
    OUT="helper: ${fp_helper:-none}"
    check "4. the fingerprint worker's helper waits at the armed sensor" eval '[ -n "$fp_helper" ] && listening'
    t0=$(now_ms)
    type_text "$TPASS"
    unlocked 15
    OUT="$ST
$(log_since)"
    echo "#   4. unlocked $(($(now_ms) - t0)) ms after the typing (with the polls)"
    check "4. the password unlocks (gdm-password), the finger still armed meanwhile" \
        eval '[ "$(st locked)" = False ] && has "signal VerificationComplete gdm-password"'
    check "4. ...gdm-fingerprint stopped with SIGTERM (the conversations race as in GDM)" \
        eval 'has "stopping gdm-fingerprint" && has "worker gdm-fingerprint exit 0"'
    check "4. ...no armed sensor behind: nobody listens on it" eval '! listening'
    check "4. ...the helper is gone, nothing left in the session" stopped_conversations
    check "4. ...no strike" test "$(strikes)" = 0
}
case_ "4. the password typed while the finger is armed unlocks at once" password_while_armed

# =================================================================================================
# 5. README's stacks: pam-auth-update --enable touchauth puts our line into gdm-password too
# (common-auth, which gdm-password includes). The module steps aside in gdm-password
# (clients.c, client_password_only): the password field at once, the finger gdm-fingerprint's.
readme_finger() {
    stacks readme
    fresh_state
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    wait_log "signal SecretInfoQuery gdm-password" 15
    wait_log "[gdm-fingerprint] info: $PROMPT" 15
    wait_listening
    wait_state message "$HINT" 10
    OUT="$ST
$(log_since)"
    echo "#   5. the shell shows: message '$(st message)', password field $(st entry), hint '$(st hint)'"
    check "5. the password field is up at once (gdm-password prompts; none of our lines in its conversation)" \
        eval 'has "signal SecretInfoQuery gdm-password | Password:" && ! has "signal Info gdm-password" && [ "$(st entry)" = True ] && [ "$(st hint)" = Password ]'
    check "5. ...the finger is offered by gdm-fingerprint alone (the shell's hint '$HINT')" \
        eval 'has "signal Info gdm-fingerprint | $PROMPT" && [ "$(st message)" = "$HINT" ]'
    shot readme
    echo "#   OCR: $(ocr readme)"
    touch_sensor "$FINGER"
    unlocked 15
    OUT="$ST
$(log_since)"
    sensor_done
    check "5. ...the finger unlocks (gdm-fingerprint)" \
        eval '[ "$(st locked)" = False ] && has "signal VerificationComplete gdm-fingerprint"'
    stopped_conversations
}
case_ "5. README's stacks: the password field at once, the finger gdm-fingerprint's" readme_finger
readme_password() {
    local t0
    stacks readme
    fresh_state
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    wait_log "[gdm-fingerprint] info: $PROMPT" 15
    wait_listening
    t0=$(now_ms)
    type_text "$TPASS"
    unlocked 15
    OUT="$ST
$(log_since)"
    echo "#   5. unlocked $(($(now_ms) - t0)) ms after the typing (with the polls)"
    check "5. the password typed at once unlocks at once (gdm-password: pam_unix, no finger timeout first)" \
        eval '[ "$(st locked)" = False ] && has "signal VerificationComplete gdm-password" && ! has "[gdm-password] error:"'
    check "5. ...no armed sensor behind, nothing left in the session" eval '! listening && stopped_conversations'
    check "5. ...no strike" test "$(strikes)" = 0
}
case_ "5. README's stacks: the password typed at once" readme_password

# =================================================================================================
# 6. the screen locked: a real sudo in a terminal of that session gets the password at once; the
# touch unlocks the screen and runs nothing else (issue 48, docs/POLICY.md#a-locked-screen). The
# system bus is at its own path for the helpers of this case (bus-at-its-path): the terminal's
# sudo asks logind there, the lock screen's gdm-fingerprint (GDM's unlock) is never asked.
locked_sudo() {
    local tsock="$W/tmux.sock" hint_locked hint_after
    stacks example
    fresh_state
    : > "$W/bus-at-its-path"
    rm -f "$W/term/ran" "$W/term/rc"
    lock || echo "#   (the lock screen did not show its prompt: $ST)"
    wait_log "[gdm-fingerprint] info: $PROMPT" 15
    wait_listening
    hint_locked=$(gdbus call --system -d org.freedesktop.login1 -o "/org/freedesktop/login1/session/$SID" \
        -m org.freedesktop.DBus.Properties.Get org.freedesktop.login1.Session LockedHint 2>&1)
    echo "#   6. session $SID's LockedHint with the shield up (the shell's SetLockedHint): $hint_locked"
    OUT=$hint_locked
    check "6. gnome-shell's lock set the session's LockedHint on the logind stand-in (SetLockedHint)" has "<true>"
    # A terminal as GNOME runs one: the user's shell outside the session, the sudo stack ours.
    TA_TERM=1 "$W/run-in" "$TERM_CG" tmux -S "$tsock" -f /dev/null new-session -d -s t -n term -x 160 -y 50 \
        "setpriv --reuid=$TUID --regid=$TGID --init-groups env -i HOME=$U/home TERM=screen PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='\$ ' bash --norc --noprofile"
    TMUX_SOCK=$tsock
    wait_for term '$' 10
    type_line term "(sudo touch $W/term/ran; exit \$?); echo \$? > $W/term/rc"
    wait_for term "password for $TUSER" 15
    OUT="$(screen term)
(the lock screen's sensor: $(listening && echo armed || echo not armed))"
    echo "#   6. the terminal: $(screen term | tr '\n' '|')"
    check "6. with the screen locked, a real sudo in a terminal of the session gets the password at once, our line says why" \
        eval 'has "The screen is locked. Use your password." && has "password for $TUSER" && lacks "$PROMPT"'
    OUT="$(log_since)
(the lock screen's sensor: $(listening && echo armed || echo not armed))"
    check "6. ...the lock screen's gdm-fingerprint stays armed, nothing ended it (no overlap)" \
        eval 'listening && lacks "Another request" && lacks "worker gdm-fingerprint exit"'
    touch_sensor "$FINGER"
    unlocked 15
    OUT="$ST
$(log_since)"
    sensor_done
    check "6. the touch unlocks the screen (gdm-fingerprint's VerificationComplete)" \
        eval '[ "$(st locked)" = False ] && has "signal VerificationComplete gdm-fingerprint"'
    OUT="$(screen term)
(ran: $([ -e "$W/term/ran" ] && echo yes || echo no); sudo ended: $([ -s "$W/term/rc" ] && echo yes || echo no))"
    check "6. ...and runs nothing else: sudo's command did not run, sudo still waits for its password" \
        eval '[ ! -e "$W/term/ran" ] && [ ! -s "$W/term/rc" ] && has "password for $TUSER"'
    hint_after=$(gdbus call --system -d org.freedesktop.login1 -o "/org/freedesktop/login1/session/$SID" \
        -m org.freedesktop.DBus.Properties.Get org.freedesktop.login1.Session LockedHint 2>&1)
    echo "#   6. LockedHint after the unlock: $hint_after"
    tm send-keys -t t:term C-c
    wait_file "$W/term/rc" 10
    tm kill-server 2>/dev/null
    rm -f "$W/bus-at-its-path"
    stopped_conversations
}
case_ "6. the screen locked: a real sudo in a terminal gets the password at once, the touch unlocks the screen" locked_sudo

# =================================================================================================
cp "$SHOTS/armed.png" "$T/armed.png" 2> /dev/null
OUT=$(ps -o pid,args --ppid "$SHELL_PID" 2>/dev/null)
kill -0 "$SHELL_PID" 2>/dev/null
check "(cleanup) the shell still runs" test $? -eq 0
# TOUCHAUTH_GNOME_KEEP=DIR: the screenshots and the logs kept there (docs/gnome-lock-*.png come from it).
if [ -n "${TOUCHAUTH_GNOME_KEEP:-}" ]; then
    mkdir -p "$TOUCHAUTH_GNOME_KEEP" && cp "$SHOTS"/*.png "$T/gdm.log" "$T/shell.log" "$T/gdmstandin.out" "$TOUCHAUTH_GNOME_KEEP"/ 2> /dev/null
fi
echo "# run time $(($(date +%s) - STARTED)) s"
summary
