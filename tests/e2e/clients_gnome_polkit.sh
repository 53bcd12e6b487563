#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GNOME Shell's own polkit dialog for real (issue 47): Debian 12's gnome-shell 43 runs headless
# as the test user in its user unit (user@UID.service/session.slice/org.gnome.Shell@wayland
# .service, where GNOME runs it), its polkit agent registered with the REAL polkitd; the test
# user's pkexec and `pkcheck --allow-user-interaction` (the password managers' way), run in the
# user's session scope, open the shell's "Authentication Required" dialog; polkitd starts the
# real setuid polkit-agent-helper-1, which runs our polkit-1 stack (bind-mounted over the
# packaged one) on libfprint's virtual sensor.
# One private mount namespace holds what must sit at fixed paths: a tmpfs over /run/dbus for
# `dbus-daemon --system` (setuid pkexec and polkit-agent-helper-1 ignore DBUS_SYSTEM_BUS_ADDRESS),
# our /run/systemd (the fake logind of tests/e2e/kit/logind.sh: the user's local active wayland
# session on seat0, which is also the user's display: the agent outside the session registers
# for it through sd_uid_get_display), our polkit rules, and a private /dev whose /dev/log is our
# syslog listener. python-dbusmock's logind answers the shell on the bus (its session); a
# session bus of the user's carries a dbusmock systemd user manager (GetUnit: no ibus fork, see
# clients_gnome.sh).
# What the dialog shows is read from its actors through org.gnome.Shell.Eval (--unsafe-mode):
# Main.componentManager's polkitAgent, its _currentDialog's entry and message labels; the
# dialog's session signals (request, show-info, show-error) are recorded with their times. Keys
# come from a Clutter virtual keyboard (the entry's own activate). docs/gnome-polkit-armed.png:
# TOUCHAUTH_SCREENSHOTS=DIR keeps the armed dialog's screenshot there.
# Run: bash tests/e2e/clients_gnome_polkit.sh (root; ~30 s once installed).
source "$(dirname "$0")/lib.sh"
source "$E2E/clients/locker_x11.sh"    # gui_packages, keep_png
STARTED=$(date +%s)
OUT=""
# The packages may pull libpam-systemd, whose postinst changes /etc/pam.d (clients_gnome.sh):
# /etc/pam.d and pam-auth-update's state are saved first and put back after.
PAMD_BEFORE=$(cd /etc/pam.d && md5sum -- * | sort)
PAMSAVE=$(mktemp -d /tmp/touchauth-gpk-pam.XXXXXX)
cp -a /etc/pam.d "$PAMSAVE/pam.d" && { [ ! -d /var/lib/pam ] || cp -a /var/lib/pam "$PAMSAVE/lib-pam"; } ||
    { echo "cannot save /etc/pam.d"; echo "0 passed, 1 failed"; exit 1; }
gui_packages gnome-shell polkitd pkexec python3-dbusmock python3-dbus python3-gi gir1.2-glib-2.0 dbus-daemon \
    socat tesseract-ocr tesseract-ocr-eng imagemagick util-linux python3 ||
    { echo "cannot install gnome-shell and polkit"; echo "0 passed, 1 failed"; exit 1; }
if [ "$(cd /etc/pam.d && md5sum -- * | sort)" != "$PAMD_BEFORE" ]; then
    rm -rf /etc/pam.d && cp -a "$PAMSAVE/pam.d" /etc/pam.d
    if [ -d "$PAMSAVE/lib-pam" ]; then rm -rf /var/lib/pam && cp -a "$PAMSAVE/lib-pam" /var/lib/pam; fi
fi
rm -rf "$PAMSAVE"
OUT=$(cd /etc/pam.d && md5sum -- * | sort)
check "(setup) /etc/pam.d as it was before the packages" test "$OUT" = "$PAMD_BEFORE"
POLKITD=/usr/lib/polkit-1/polkitd
for tool in gnome-shell dbus-daemon gdbus unshare nsenter setpriv socat pkexec pkcheck tesseract \
    "$POLKITD" /usr/lib/polkit-1/polkit-agent-helper-1; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
run_dbus_dir
for path in /run/dbus /run/systemd /etc/polkit-1/rules.d /usr/lib/pam.d/polkit-1; do
    [ -e "$path" ] || { echo "no $path to mount over"; echo "0 passed, 1 failed"; exit 1; }
done
PY=/usr/bin/python3    # Debian's python: gi and dbusmock are its packages
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }
MOUNTS_BEFORE=$(mounts_at /run/dbus /run/systemd)

TUSER=${TOUCHAUTH_E2E_USER:-touchauth-test}-gpk
TUSER=${TUSER:0:31}
make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
TGID=$(id -g "$TUSER")
CONF="$T/touchauth.conf"
mkdir -m 0700 "$T/state"
conf() {
    write_config "$CONF" "helper=$HELPER" "state_dir=$T/state" "password_after_boot=no" \
        "password_max_age=0" "password_after_enroll_change=no" "timeout=8" "$@"
}
conf
enroll "$TUSER" right-index-finger tu-gpk-right
check "(setup) enroll stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"
FINGER="SCAN tu-gpk-right"
OTHER="SCAN tu-gpk-stranger"
PROMPT="Place your finger on the fingerprint reader"
WRONG="Not recognized, try again"

# The polkit-1 stack (as clients_polkit.sh's), bind-mounted over the packaged one; rewritten in
# place (the bind mount sees it) for the measure without our line.
ours_stack() {
    printf '%s\n' "auth [success=done abort=die default=ignore] $MODULE config=$CONF debug" \
        "auth required pam_unix.so try_first_pass nodelay" \
        "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-polkit"
}
unix_stack() {
    printf '%s\n' "auth required pam_unix.so nodelay" "account required pam_permit.so" \
        "session required pam_permit.so" > "$T/pam-polkit"
}
ours_stack
chmod 0644 "$T/pam-polkit"
mkdir -m 0755 "$T/rules"
cat > "$T/rules/00-touchauth-e2e.rules" <<EOF
polkit.addRule(function(action, subject) {
    if (action.id == "org.freedesktop.policykit.exec" && subject.user == "$TUSER")
        return polkit.Result.AUTH_SELF;
});
EOF
chmod 0644 "$T/rules/00-touchauth-e2e.rules"

# The fake logind: the user's local active wayland session $SID in front on seat0 (and their display).
SID=44
LOGIND="$T/rs"
logind_front "$SID" "$TUID" TYPE=wayland VTNR=2
SLICE="$CG/user.slice/user-$TUID.slice"
SCOPE="$SLICE/session-$SID.scope"
SHELL_CG="$SLICE/user@$TUID.service/session.slice/org.gnome.Shell@wayland.service"
OURS=""
for d in "$SCOPE" "$SHELL_CG" "$SLICE/user@$TUID.service/session.slice" "$SLICE/user@$TUID.service" \
    "$SLICE" "$CG/user.slice"; do [ -d "$d" ] || OURS+=" $d"; done
for d in "$SCOPE" "$SHELL_CG"; do
    [ -d "$d" ] && { echo "$d exists already: not ours to use"; echo "0 passed, 1 failed"; exit 1; }
done
mkdir -p "$SCOPE" "$SHELL_CG"

W=$(mktemp -d /tmp/touchauth-gpk.XXXXXX)
chmod 0755 "$W"
U="$W/u"
mkdir -m 0700 "$U" "$U/home" "$U/run" "$U/shots"
chown -R "$TUID:$TGID" "$U"
SHOTS="$U/shots"
NS_PIDS=""
HOLDER=""
cleanup() {
    local p d
    TUID=${TUID:-}
    for d in "$SHELL_CG" "$SCOPE"; do
        for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null; done
    done
    for p in $NS_PIDS; do kill "$p" 2>/dev/null; done
    # Every process of the suite's own user: its session bus and what that bus started (dconf,
    # at-spi), which outlive the shell and hold the fds the suite was started with (a first
    # version left them and kept the machine's test lock).
    for p in $(pgrep -u "$TUID" 2>/dev/null); do kill "$p" 2>/dev/null; done
    [ -z "$HOLDER" ] || kill "$HOLDER" 2>/dev/null
    sleep 0.2
    for d in $OURS; do
        [ -d "$d" ] || continue
        for p in $(cat "$d/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done
        rmdir "$d" 2>/dev/null
    done
    return 0
}
trap 'cleanup; rm -rf "$W" "$T"' EXIT

# --- the namespace ---------------------------------------------------------------------------
mkdir -m 0755 "$T/dev"
: > "$T/syslog"
cat > "$T/ns-init" <<'EOF'
#!/bin/sh
# In the private mount namespace, as root: $1 = $T. Ends in the holder (sleep) nsenter joins.
set -e
T=$1
mount -t tmpfs -o mode=0755,size=8m tmpfs "$T/dev"
cp -a -x /dev/. "$T/dev/"
rm -f "$T/dev/log"
mkdir -p "$T/dev/pts" "$T/dev/shm"
mount --rbind /dev/pts "$T/dev/pts"
mount --rbind /dev/shm "$T/dev/shm"
mount --rbind "$T/dev" /dev
socat -u UNIX-RECV:/dev/log,mode=666 OPEN:"$T/syslog",creat,append &
echo $! > "$T/socat.pid"
mount -t tmpfs -o mode=0755 tmpfs /run/dbus
mount --bind "$T/rs" /run/systemd
mount --bind "$T/rules" /etc/polkit-1/rules.d
mount --bind "$T/pam-polkit" /usr/lib/pam.d/polkit-1
if [ -e /etc/pam.d/polkit-1 ]; then mount --bind "$T/pam-polkit" /etc/pam.d/polkit-1; fi
dbus-daemon --system --fork --nopidfile --print-pid > "$T/dbus.pid"
G_MESSAGES_DEBUG=all /usr/lib/polkit-1/polkitd > "$T/polkitd.log" 2>&1 &
echo $! > "$T/polkitd.pid"
/usr/bin/python3 -m dbusmock --system --template logind > "$T/logind.log" 2>&1 &
echo $! > "$T/logind.pid"
exec sleep 100000
EOF
chmod 0755 "$T/ns-init"
unshare -m --propagation private "$T/ns-init" "$T" > "$T/ns-init.log" 2>&1 &
HOLDER=$!
for _ in $(seq 200); do [ -s "$T/logind.pid" ] && break; sleep 0.05; done
NS_PIDS="$(cat "$T/socat.pid" "$T/dbus.pid" "$T/polkitd.pid" "$T/logind.pid" 2>/dev/null | tr '\n' ' ')"
NSMNT=$(readlink "/proc/$HOLDER/ns/mnt")
check "(setup) the namespace is up and not the machine's" eval '[ -n "$NSMNT" ] && [ "$NSMNT" != "$(readlink /proc/self/ns/mnt)" ]'
# ns CMD...: CMD in the namespace (root); in_cg CGROUP CMD...: in CGROUP too.
ns() { nsenter -m -t "$HOLDER" "$@"; }
in_cg() { local cg=$1; shift; sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" nsenter -m -t "$HOLDER" "$@"; }
wait_log() {  # wait_log FILE TEXT [SECONDS]
    local deadline=$(($(now_ms) + ${3:-10} * 1000))
    until grep -qF -- "$2" "$1" 2>/dev/null; do [ "$(now_ms)" -lt "$deadline" ] || return 1; sleep 0.02; done
}
check "(setup) the real polkitd owns org.freedesktop.PolicyKit1 on the private system bus" \
    wait_log "$T/polkitd.log" "Acquired the name org.freedesktop.PolicyKit1 on the system bus"
sys_call() { ns gdbus call --system "$@" > /dev/null 2>&1; }
for _ in $(seq 200); do
    sys_call -d org.freedesktop.login1 -o /org/freedesktop/login1 -m org.freedesktop.DBus.Peer.Ping && break
    sleep 0.05
done
sys_call -d org.freedesktop.login1 -o /org/freedesktop/login1 -m org.freedesktop.DBus.Mock.AddSession \
    "$SID" seat0 "$TUID" "$TUSER" true
check "(setup) logind (dbusmock) has session $SID for $TUSER" test $? -eq 0

# --- the user's session bus, systemd's user manager (dbusmock), the shell ------------------------
AS_USER=(setpriv "--reuid=$TUID" "--regid=$TGID" --init-groups env -i "HOME=$U/home" "XDG_RUNTIME_DIR=$U/run"
    PATH=/usr/bin:/bin "USER=$TUSER" "LOGNAME=$TUSER" "DBUS_SESSION_BUS_ADDRESS=unix:path=$U/run/bus" LANG=C.UTF-8)
ns "${AS_USER[@]}" dbus-daemon --session --nofork --address="unix:path=$U/run/bus" > "$T/session-bus.log" 2>&1 &
NS_PIDS+=" $!"
for _ in $(seq 200); do [ -S "$U/run/bus" ] && break; sleep 0.05; done
ns "${AS_USER[@]}" $PY -m dbusmock --session org.freedesktop.systemd1 /org/freedesktop/systemd1 \
    org.freedesktop.systemd1.Manager > "$T/systemd-mock.log" 2>&1 &
NS_PIDS+=" $!"
for _ in $(seq 200); do
    ns "${AS_USER[@]}" gdbus call --session -d org.freedesktop.systemd1 -o /org/freedesktop/systemd1 \
        -m org.freedesktop.DBus.Mock.AddMethod org.freedesktop.systemd1.Manager GetUnit s o \
        'ret = "/org/freedesktop/systemd1/unit/stand_2din"' > /dev/null 2>&1 && break
    sleep 0.05
done
check "(setup) the user's session bus, and systemd's user manager (dbusmock) on it" test -S "$U/run/bus"
SHELL_T0=$(now_ms)
in_cg "$SHELL_CG" "${AS_USER[@]}" "XDG_SESSION_ID=$SID" XDG_SESSION_TYPE=wayland XDG_CURRENT_DESKTOP=GNOME \
    LIBGL_ALWAYS_SOFTWARE=1 gnome-shell --wayland --headless --no-x11 --virtual-monitor 1280x800 \
    --wayland-display wayland-tagpk --unsafe-mode > "$T/shell.log" 2>&1 &
SHELL_PID=$!
NS_PIDS+=" $SHELL_PID"

ev() {  # ev JS: org.gnome.Shell.Eval as the user; EV = the result's text
    local out
    out=$(ns "${AS_USER[@]}" timeout 20 gdbus call --session -d org.gnome.Shell -o /org/gnome/Shell \
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
ev_wait() {  # ev_wait JS SECONDS: until JS evaluates to true
    local deadline=$(($(now_ms) + $2 * 1000))
    until ev "$1" && [ "$EV" = True ]; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}
ev_wait '!Main.layoutManager._startingUp' 90
check "(setup) gnome-shell started headless (virtual monitor, software rendering)" test $? -eq 0
echo "#   gnome-shell $(gnome-shell --version | sed 's/GNOME Shell //') up after $(($(now_ms) - SHELL_T0)) ms"
check "(setup) the shell's polkit agent registered with polkitd for the user's session (sd_uid_get_display)" \
    wait_log "$T/polkitd.log" "Added authentication agent for unix-session:$SID" 10
# The instrumentation: the dialog's session signals, each with its wall-clock time (ms), and a
# virtual keyboard.
ev 'const P = imports.ui.components.polkitAgent; const Clutter = imports.gi.Clutter;
    global._ta = { ev: [], kbd: Clutter.get_default_backend().get_default_seat().create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE) };
    const D = P.AuthenticationDialog.prototype;
    for (const [name, kind] of [["_onSessionRequest", "request"], ["_onSessionShowInfo", "info"], ["_onSessionShowError", "error"], ["_onSessionCompleted", "completed"]]) {
        const orig = D[name];
        D[name] = function (s, a, b) { global._ta.ev.push([Date.now(), kind, String(a)]); return orig.call(this, s, a, b); };
    }
    true'
check "(setup) the dialog's session signals are recorded, a virtual keyboard made" test "$EV" = True

# The dialog as it is: open, its texts, its entry.
JS_STATE='const a = Main.componentManager._allComponents.polkitAgent; const d = a && a._currentDialog;
    const M = imports.ui.modalDialog;
    JSON.stringify({ open: !!(d && d.state === M.State.OPENED && d.visible),
      info: d && d._infoMessageLabel.visible ? d._infoMessageLabel.text : "",
      error: d && d._errorMessageLabel.visible ? d._errorMessageLabel.text : "",
      entry: !!(d && d._passwordEntry.visible && d._passwordEntry.reactive),
      focus: !!(d && global.stage.key_focus === d._passwordEntry.clutter_text),
      hint: d ? String(d._passwordEntry.hint_text) : "", typed: d ? d._passwordEntry.get_text().length : -1,
      ev: global._ta.ev })'
state() { ev "$JS_STATE"; ST=$EV; }
st() { $PY -c 'import json, sys; v = json.loads(sys.argv[1])[sys.argv[2]]; print(json.dumps(v) if isinstance(v, (list, dict)) else v)' "$ST" "$1"; }
wait_state() {  # wait_state FIELD VALUE [SECONDS]
    local deadline=$(($(now_ms) + ${3:-15} * 1000))
    while :; do
        state
        [ "$(st "$1")" = "$2" ] && return 0
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}
# first_ms KIND: the time (ms) of the dialog's first signal KIND since the case began ("" if none).
first_ms() { $PY -c 'import json, sys
for t, k, _ in json.loads(sys.argv[1])["ev"]:
    if k == sys.argv[2]:
        print(t); break' "$ST" "$1"; }
events() { $PY -c 'import json, sys; print(" | ".join(k + " " + a for _, k, a in json.loads(sys.argv[1])["ev"]))' "$ST"; }
keys() {  # keys KEYVAL-EXPR...: the virtual keyboard presses and releases each
    local js="const Clutter = imports.gi.Clutter; const GLib = imports.gi.GLib; let t = GLib.get_monotonic_time(); const k = global._ta.kbd;"
    for k in "$@"; do
        js+=" k.notify_keyval(t++, $k, Clutter.KeyState.PRESSED); k.notify_keyval(t++, $k, Clutter.KeyState.RELEASED);"
    done
    ev "$js true"
}
type_only() {  # type_only TEXT: the user types TEXT (no Enter)
    local ks=() i
    for ((i = 0; i < ${#1}; i++)); do ks+=("Clutter.unicode_to_keysym($(printf '%d' "'${1:i:1}"))"); done
    keys "${ks[@]}"
}
type_text() { type_only "$1"; keys Clutter.KEY_Return; }
shot() {  # shot NAME: the whole screen into $SHOTS/NAME.png
    rm -f "$SHOTS/$1.png"
    ns "${AS_USER[@]}" timeout 20 gdbus call --session -d org.gnome.Shell.Screenshot -o /org/gnome/Shell/Screenshot \
        -m org.gnome.Shell.Screenshot.Screenshot false false "$SHOTS/$1.png" > /dev/null 2>&1
}
ocr() { tesseract "$SHOTS/$1.png" - 2> /dev/null | tr -s ' \n' ' '; }
touch_finger() { timeout 5 "$PY" "$E2E/vsensor.py" "$SOCK" "$@" > /dev/null 2>&1; }

# ask CMD: the test user runs CMD in their session's scope (pkexec's or pkcheck's subject is
# there), in the namespace, no terminal; its output into $U/ask.out, its status into $U/ask.rc.
ask() {
    [ -z "${ASK:-}" ] || ask_stop
    rm -f "$U/ask.rc" "$U/ask.out" "$SOCK"
    : > "$T/syslog"
    ev 'global._ta.ev = []; true'
    ASK_T0=$(now_ms)
    in_cg "$SCOPE" setpriv "--reuid=$TUID" "--regid=$TGID" --init-groups env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
        setsid sh -c "$1"' > "$0/ask.out" 2>&1; echo $? > "$0/ask.rc"' "$U" < /dev/null > /dev/null 2>&1 &
    ASK=$!
}
asked() { for _ in $(seq $((${1:-15} * 50))); do [ -s "$U/ask.rc" ] && { wait "$ASK" 2>/dev/null; return 0; }; sleep 0.02; done; return 1; }
ask_rc() { cat "$U/ask.rc" 2>/dev/null; }
ask_stop() { [ -s "$U/ask.rc" ] || { ev 'const a = Main.componentManager._allComponents.polkitAgent; if (a._currentDialog) a._currentDialog.cancel(); true'; asked 5; }; }
PKEXEC="pkexec --disable-internal-agent id -u"
PKCHECK="pkcheck --action-id org.freedesktop.policykit.exec --process \$\$ --allow-user-interaction"
ours_named() {  # processes of this namespace named NAME (comm), zombies left out
    local p s
    for p in $(pgrep -x "$1"); do
        [ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" = "$NSMNT" ] || continue
        s=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$p/stat" 2>/dev/null)
        [ -n "$s" ] && [ "$s" != Z ] && echo "$p"
    done
}
no_helper_left() {
    local i
    for i in $(seq 150); do
        [ -z "$(ours_named touchauth)$(ours_named polkit-agent-he)" ] && return 0
        sleep 0.02
    done
    return 1
}
say_dialog() { state; echo "#   the dialog's signals: $(events)"; }
# armed_dialog NAME: the dialog open with our line AND its password entry (focused), the sensor armed.
armed_dialog() {
    local name=$1 i
    wait_state entry True 15
    for i in $(seq 250); do armed && break; sleep 0.02; done
    wait_state info "$PROMPT" 5
    OUT=$ST
    check "$name -> the dialog shows '$PROMPT' and its password entry at once (focused)" \
        eval '[ "$(st info)" = "$PROMPT" ] && [ "$(st entry)" = True ] && [ "$(st focus)" = True ]'
    check "$name -> the sensor is armed" armed
}
dialog_gone() { wait_state open False "${1:-10}"; }

# =================================================================================================
gpk_finger() {
    conf
    fresh_state
    ask "$PKEXEC"
    armed_dialog "pkexec"
    wait_state open True 5
    shot armed
    OUT=$(ocr armed)
    check "pkexec -> the screenshot shows 'Authentication Required', our line and the field's 'Password'" \
        eval 'has "Authentication Required" && has "Place your finger" && has "Password"'
    cp "$SHOTS/armed.png" "$T/armed.png" 2> /dev/null
    [ -z "${TOUCHAUTH_SCREENSHOTS:-}" ] || keep_png "$SHOTS/armed.png" "$TOUCHAUTH_SCREENSHOTS/gnome-polkit-armed.png"
    local t0
    t0=$(now_ms)
    touch_finger "$FINGER"
    asked 15
    dialog_gone 10
    echo "#   pkexec: the touch -> the dialog closed in $(($(now_ms) - t0)) ms (with the polls)"
    OUT="$(cat "$U/ask.out")"
    check "pkexec -> the finger -> the dialog closes, pkexec ran id -u as root, nothing typed" \
        eval '[ "$(ask_rc)" = 0 ] && [ "$(cat "$U/ask.out")" = 0 ] && [ "$(st open)" = False ]'
    check "pkexec -> ...one password request only (nothing after the match)" \
        eval '[ "$($PY -c "import json,sys; print(sum(1 for e in json.loads(sys.argv[1])[\"ev\"] if e[1] == \"request\"))" "$ST")" = 1 ]'
    check "pkexec -> ...the audit line: success" logged "user $TUSER, service polkit-1: success, strikes 0"
    check "pkexec -> ...polkitd: authenticated as the user" \
        wait_log "$T/polkitd.log" "successfully authenticated as unix-user:$TUSER"
    check "pkexec -> ...no helper left" no_helper_left
    say_dialog
}
case_ "1. GNOME's dialog: pkexec, the finger" gpk_finger

gpk_typed() {
    conf
    fresh_state
    ask "$PKEXEC"
    armed_dialog "typed while armed"
    local t0
    t0=$(now_ms)
    type_text "$TPASS"
    asked 15
    dialog_gone 10
    echo "#   the password typed while armed -> granted in $(($(now_ms) - t0)) ms (with the polls)"
    OUT="$(cat "$U/ask.out")"
    check "typed while armed -> granted at once: pkexec ran id -u as root, the dialog closed" \
        eval '[ "$(ask_rc)" = 0 ] && [ "$(cat "$U/ask.out")" = 0 ] && [ "$(st open)" = False ]'
    check "typed while armed -> the audit line: userFallback (the sensor stopped), no strike" \
        logged "user $TUSER, service polkit-1: userFallback, strikes -"
    check "typed while armed -> no strike on disk" eval '[ "$(strikes)" = 0 ]'
    check "typed while armed -> no helper left (the sensor closed)" eval 'no_helper_left && ! armed_now'
    say_dialog
}
# armed_now: a helper listens on the sensor's socket right now.
armed_now() { "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError:
    sys.exit(1)' "$SOCK"; }
case_ "2. GNOME's dialog: the password typed while the finger is armed" gpk_typed

gpk_wrong() {
    conf
    fresh_state
    ask "$PKEXEC"
    armed_dialog "wrong finger"
    type_only "abc"
    wait_state typed 3 5
    OUT=$ST
    check "wrong finger -> (setup) three characters typed into the entry" test "$(st typed)" = 3
    touch_finger "$OTHER"
    wait_state error "$WRONG" 10
    OUT=$ST
    check "wrong finger -> the dialog says '$WRONG', the entry still there" \
        eval '[ "$(st error)" = "$WRONG" ] && [ "$(st entry)" = True ]'
    # GNOME's polkitAgent.js: _onSessionShowError and _onSessionShowInfo call
    # this._passwordEntry.set_text(''): a message clears what was typed (tests/e2e/NOTES.md).
    check "wrong finger -> GNOME's dialog cleared what was typed (its own show-error)" test "$(st typed)" = 0
    # (no free try: the next round's strike is charged before it is offered, so 2 while it waits)
    OUT="strikes on disk: $(strikes)"
    check "wrong finger -> the strike is on disk" eval '[ "$(strikes)" -ge 1 ]'
    check "wrong finger -> the sensor still armed for another try" armed_now
    touch_finger "$FINGER"
    asked 15
    dialog_gone 10
    OUT="$(cat "$U/ask.out")"
    check "wrong finger, then the right one -> pkexec ran id -u as root" \
        eval '[ "$(ask_rc)" = 0 ] && [ "$(cat "$U/ask.out")" = 0 ]'
    say_dialog
    fresh_state
}
case_ "3. GNOME's dialog: a wrong finger, then the right one" gpk_wrong

gpk_pkcheck() {
    conf
    fresh_state
    ask "$PKCHECK"
    armed_dialog "pkcheck --allow-user-interaction"
    touch_finger "$FINGER"
    asked 15
    dialog_gone 10
    OUT="$(cat "$U/ask.out")"
    check "pkcheck --allow-user-interaction -> the finger -> authorized (status 0), the dialog closed" \
        eval '[ "$(ask_rc)" = 0 ] && [ "$(st open)" = False ]'
    say_dialog
}
case_ "4. GNOME's dialog: pkcheck --allow-user-interaction, the finger" gpk_pkcheck

# The field's time: pkexec started -> the dialog's request handled (the entry shown), with our
# line in the stack and without it (pam_unix alone), the same run. Printed, never asserted.
gpk_field_time() {
    conf
    fresh_state
    local with without
    ask "$PKEXEC"
    wait_state entry True 15
    with=$(( $(first_ms request) - ASK_T0 ))
    check "the field's time: with touchauth, the entry came" test "$(st entry)" = True
    touch_finger "$FINGER"
    asked 15
    dialog_gone 10
    unix_stack
    ask "$PKEXEC"
    wait_state entry True 15
    without=$(( $(first_ms request) - ASK_T0 ))
    check "the field's time: without touchauth, the entry came" test "$(st entry)" = True
    type_text "$TPASS"
    asked 15
    dialog_gone 10
    ours_stack
    check "the field's time: without touchauth, the password -> pkexec ran id -u as root" test "$(ask_rc)" = 0
    echo "#   pkexec started -> GNOME's password field: $with ms with touchauth, $without ms without"
}
case_ "5. the field's time, with and without touchauth" gpk_field_time

# =================================================================================================
kill -0 "$SHELL_PID" 2>/dev/null
check "(cleanup) the shell still runs" test $? -eq 0
if [ -n "${TOUCHAUTH_GNOME_KEEP:-}" ]; then
    mkdir -p "$TOUCHAUTH_GNOME_KEEP" && cp "$SHOTS"/*.png "$T/shell.log" "$T/polkitd.log" "$T/syslog" "$TOUCHAUTH_GNOME_KEEP"/ 2> /dev/null
fi
cleanup
HOLDER=""
NS_PIDS=""
OURS=""
OUT=$(mounts_at /run/dbus /run/systemd)
check "(cleanup) nothing of ours mounted on the machine" test "$OUT" = "$MOUNTS_BEFORE"
echo "# run time $(($(date +%s) - STARTED)) s"
summary
