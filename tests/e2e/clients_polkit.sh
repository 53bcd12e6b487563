#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pkexec and polkit for real (the clients issue): the real polkitd on a private system bus, real
# pkexec typed in a tmux pane as the test user, the real setuid polkit-agent-helper-1 running
# our `polkit-1` stack (bind-mounted over the packaged one), libfprint's virtual sensor, and the
# fake logind state of ../shared/TESTING.md (a /run/systemd of ours, the processes moved into
# session-N.scope cgroups). Everything runs in one private mount namespace: a tmpfs over
# /run/dbus for `dbus-daemon --system`, our /run/systemd, our /etc/polkit-1/rules.d (one rule:
# the test user authenticates as themself for pkexec), and a private copy of /dev whose /dev/log
# is our syslog listener (the module's debug lines say why it refused; the machine's /dev is
# never touched).
#
# Two kinds of agent answer pkexec, both through libpolkit-agent-1's PolkitAgentSession, which
# spawns polkit-agent-helper-1 with pipes:
# - polkit's text agent, pkttyagent, in pkexec's terminal (clients/polkit_tty.sh): the helper
#   inherits that terminal as its controlling terminal while its stdin is the agent's pipe;
# - an agent without a terminal (clients/polkit_agent.py), as GNOME Shell's and KDE's are: its
#   log is what the dialog shows, and the test presses its buttons. Where it runs decides what
#   the module sees: inside the session's scope (a desktop that autostarts its agent in the
#   session), or in user@UID.service, outside any session, where GNOME (gnome-shell is
#   org.gnome.Shell@*.service) and KDE (plasma-polkit-agent.service) run it.
#
# "Armed" = the virtual driver's socket exists (the helper creates it in fp_device_open; each
# case removes it first), so "no socket" = the sensor was never armed.
#
# What the module does there (docs/decisions/0034-the-agent-line-is-the-prompts.md): under an
# agent without a terminal it owns polkit-agent-helper-1's line to the agent while the prompt is
# up: it sends the password request itself, so the dialog shows its field at once beside our
# line, arms the finger, and reads the field's answer (typed: the sensor stops and pam_unix gets
# it as PAM_AUTHTOK; a match: no answer needed). Under pkttyagent, whose terminal the helper is in
# the foreground of, it owns that terminal as at sudo (Enter, typing, Ctrl-C).
#
# Run: TOUCHAUTH_E2E_USER=touchauth-pk bash tests/e2e/clients_polkit.sh (root; ~12 s).
source "$(dirname "$0")/../../scripts/lib.sh"

ensure_packages_no_start polkitd pkexec dbus-daemon tmux socat util-linux python3-gi gir1.2-polkit-1.0 libpam-modules || { echo "cannot install polkit's packages"; echo "0 passed, 1 failed"; exit 1; }
source "$(dirname "$0")/lib.sh"
STARTED=$(date +%s)

POLKITD=/usr/lib/polkit-1/polkitd
for tool in tmux unshare nsenter setpriv setsid socat pkexec pkttyagent dbus-daemon python3 \
            /usr/bin/python3 "$POLKITD" /usr/lib/polkit-1/polkit-agent-helper-1; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
run_dbus_dir
for path in /run/dbus /run/systemd /etc/polkit-1/rules.d /usr/lib/pam.d/polkit-1; do
    [ -e "$path" ] || { echo "no $path to mount over"; echo "0 passed, 1 failed"; exit 1; }
done
/usr/bin/python3 -c 'import gi; gi.require_version("PolkitAgent", "1.0")' 2> /dev/null ||
    { echo "no PolkitAgent typelib for /usr/bin/python3"; echo "0 passed, 1 failed"; exit 1; }
# cgroup2, where sd-login reads a process's session: hybrid (this VM) or unified.
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }
PAM_PKG_SUM=$(sha256sum < /usr/lib/pam.d/polkit-1)
DEVLOG_BEFORE=$(stat -c '%F %i' /dev/log 2>/dev/null || echo none)
# /dev itself (a container's is a tmpfs already): nothing of ours mounted over it.
DEV_BEFORE=$(stat -c '%d:%i' /dev)
MOUNTS_BEFORE=$(mounts_at /run/dbus /run/systemd)

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
CONF="$T/touchauth.conf"    # enroll() reads this one too
mkdir -m 0700 "$T/state"
# Rewritten in place. The trust rules are issue 3's: off here.
conf() {
    write_config "$CONF" "helper=$HELPER" "state_dir=$T/state" "password_after_boot=no" \
        "password_max_age=0" "password_after_enroll_change=no" "timeout=8" "$@"
}
conf
enroll "$TUSER" right-index-finger tu-right-index
check "(setup) enroll stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"
FINGER="SCAN tu-right-index"
PROMPT="Place your finger on the fingerprint reader"
LOCKED="Too many failed attempts. Enter your password to use your fingerprint again."

# The polkit-1 stack (the same lines as terminal.sh's sudo and su), bind-mounted over the
# packaged /usr/lib/pam.d/polkit-1 (and /etc/pam.d/polkit-1, should the machine have one).
printf '%s\n' "auth [success=done abort=die default=ignore] $MODULE config=$CONF debug" \
    "auth required pam_unix.so try_first_pass nodelay" \
    "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-polkit"
chmod 0644 "$T/pam-polkit"
# pkexec's action (org.freedesktop.policykit.exec) asks the test user for their own password:
# no group sudo needed, and no "keep" (each run asks again).
mkdir -m 0755 "$T/rules"
cat > "$T/rules/00-touchauth-e2e.rules" <<EOF
polkit.addRule(function(action, subject) {
    if (action.id == "org.freedesktop.policykit.exec" && subject.user == "$TUSER")
        return polkit.Result.AUTH_SELF;
});
EOF
chmod 0644 "$T/rules/00-touchauth-e2e.rules"

# --- the fake logind (tests/e2e/kit/logind.sh) ----------------------------------------------
# $T/rs is /run/systemd in the namespace; each case writes the state it needs there (sd-login
# reads it at each call: polkitd and the module see the new state at once): logind_none (this
# VM: no logind), logind_front 7 "$TUID" TYPE=... (the user's local active session 7, in front on
# seat0), or a remote session 9 without a seat (logind_session, seat0 with no active session).
LOGIND="$T/rs"
logind_none
SLICE="$CG/user.slice/user-$TUID.slice"
scope() { echo "$SLICE/session-$1.scope"; }
# Where GNOME runs gnome-shell (its polkit agent) and KDE plasma-polkit-agent: the user manager.
USER_SERVICE="$SLICE/user@$TUID.service/session.slice/org.gnome.Shell@wayland.service"
# ...and GNOME Terminal's shells (gnome-terminal-server is a user service too).
USER_APP="$SLICE/user@$TUID.service/app.slice/vte-spawn-e2e.scope"
# The cgroup directories this run may make (deepest first), removed at the end if ours.
OURS=""
for d in "$(scope 7)" "$(scope 9)" "$USER_SERVICE" "$USER_APP" "$SLICE/user@$TUID.service/session.slice" \
         "$SLICE/user@$TUID.service/app.slice" "$SLICE/user@$TUID.service" "$SLICE" "$CG/user.slice"; do
    [ -d "$d" ] || OURS+=" $d"
done
# into CGROUP PID: moves PID (and so what it starts from now on) into CGROUP, made if missing.
into() { mkdir -p "$1" && echo "$2" > "$1/cgroup.procs"; }
cg_remove() {  # waits (up to 2 s) for DIR's processes to end, moves any left to the root, rmdir
    local p i
    for i in $(seq 100); do [ -s "$1/cgroup.procs" ] || break; sleep 0.02; done
    for p in $(cat "$1/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done
    rmdir "$1" 2>/dev/null
}

# --- the namespace ---------------------------------------------------------------------------
W=$(mktemp -d /tmp/touchauth-polkit.XXXXXX)
chmod 0755 "$W"
mkdir -m 0777 "$W/u"
cp "$E2E/clients/polkit_agent.py" "$E2E/clients/polkit_tty.sh" "$W/"
# run DIR COMMAND...: COMMAND in the pane's foreground; its status into DIR/rc. Ctrl-C ends
# COMMAND (SIGINT at its default there), not this script (a trap: an interactive bash whose
# child dies of SIGINT drops the rest of its command line), so the status is still recorded.
printf '%s\n' '#!/bin/bash' 'trap : INT' 'd=$1; shift' 'stty -g > "$d/before"' '"$@"' \
    'echo $? > "$d/rc"' 'stty -g > "$d/after"' > "$W/run"
chmod 0755 "$W/polkit_agent.py" "$W/polkit_tty.sh" "$W/run"
TMUX_SOCK="$W/tmux.sock"
AGENT=""
NS_PIDS=""   # socat, dbus-daemon, polkitd: with the tmux server, the namespace's processes
cleanup() {
    agent_stop
    tm kill-server 2>/dev/null
    local p
    for p in $NS_PIDS; do kill "$p" 2>/dev/null; done
    for d in $OURS; do [ -d "$d" ] && cg_remove "$d"; done
    return 0
}
trap 'cleanup; rm -rf "$W" "$T"' EXIT

mkdir -m 0755 "$T/dev"
: > "$T/syslog"
cat > "$T/ns-init" <<'EOF'
#!/bin/sh
# In the private mount namespace, as root: $1 = $T, $2 = the pane's command, $3 = tmux socket.
set -e
T=$1
# A private /dev: a tmpfs copy (device nodes and all) with the real /dev/pts and /dev/shm bound
# in, so /dev/log can be our listener without creating anything in the machine's /dev.
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
# Without --no-debug polkitd keeps stderr; G_MESSAGES_DEBUG=all explains every decision.
G_MESSAGES_DEBUG=all /usr/lib/polkit-1/polkitd > "$T/polkitd.log" 2>&1 &
echo $! > "$T/polkitd.pid"
exec tmux -S "$3" -f /dev/null new-session -d -s t -n pk -x 160 -y 50 "$2"
EOF
chmod 0755 "$T/ns-init"
SHELL_CMD="setpriv --reuid=$TUID --regid=$TUID --init-groups env -i HOME=$W/u TERM=screen \
PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='\$ ' bash --norc --noprofile"
logind_none
unshare -m --propagation private "$T/ns-init" "$T" "$SHELL_CMD" "$TMUX_SOCK"
NS_RC=$?
NS_PIDS="$(cat "$T/socat.pid" "$T/dbus.pid" "$T/polkitd.pid" 2>/dev/null | tr '\n' ' ')"
tm set-option -g history-limit 0 > /dev/null 2>&1
NSPID=$(tm display -p '#{pid}' 2>/dev/null)
check "(setup) the namespace is up (status $NS_RC): tmux server ${NSPID:-missing}" test -n "$NSPID"
wait_log() {  # wait_log FILE TEXT [SECONDS]
    local deadline=$(($(now_ms) + ${3:-10} * 1000))
    until grep -qF -- "$2" "$1" 2>/dev/null; do [ "$(now_ms)" -lt "$deadline" ] || return 1; sleep 0.02; done
}
OUT=$(cat "$T/polkitd.log")
check "(setup) the real polkitd owns org.freedesktop.PolicyKit1 on the private bus" \
    wait_log "$T/polkitd.log" "Acquired the name org.freedesktop.PolicyKit1 on the system bus"
check "(setup) polkitd read /etc/polkit-1/rules.d (ours)" wait_log "$T/polkitd.log" "Loading rules from directory /etc/polkit-1/rules.d"
NSMNT=$(readlink "/proc/$NSPID/ns/mnt")
check "(setup) the namespace is not the machine's" test "$NSMNT" != "$(readlink /proc/self/ns/mnt)"
wait_for pk '$' 5

# --- the agents ------------------------------------------------------------------------------
mkfifo -m 0600 "$W/u/agent.ctl"
chown "$TUID" "$W/u/agent.ctl"
# agent_start CGROUP ARGS...: the terminal-less agent, as the user, in CGROUP, in the namespace,
# in a session of its own (setsid: no controlling terminal); waits until it has registered.
agent_start() {
    local cg=$1; shift
    agent_stop
    : > "$W/u/agent.log"
    chown "$TUID" "$W/u/agent.log"
    sh -c 'mkdir -p "$1" && echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
        nsenter -m -t "$NSPID" setpriv --reuid="$TUID" --regid="$TUID" --init-groups \
        env -i PATH=/usr/bin:/bin LANG=C.UTF-8 setsid /usr/bin/python3 "$W/polkit_agent.py" "$@" \
        --log "$W/u/agent.log" --control "$W/u/agent.ctl" > "$W/agent.err" 2>&1 &
    AGENT=$!
    local i
    for i in $(seq 500); do grep -q '^register' "$W/u/agent.log" && return 0; sleep 0.02; done
    return 1
}
agent_stop() {
    [ -n "$AGENT" ] || return 0
    kill "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null
    AGENT=""
}
press() { timeout 5 sh -c 'printf "%s\n" "$1" > "$2"' sh "$1" "$W/u/agent.ctl"; }  # a dialog button
dialog() { cat "$W/u/agent.log" 2>/dev/null; }
dialog_has() { grep -qxF -- "$1" "$W/u/agent.log"; }     # a whole line of the dialog
dialog_lacks() { ! grep -qF -- "$1" "$W/u/agent.log"; }
wait_dialog() { wait_log "$W/u/agent.log" "$1" "${2:-10}"; }
# What this case's polkitd said (its debug log since start).
polkitd_said() { tail -c +"$((PK_MARK + 1))" "$T/polkitd.log" | grep -qF -- "$1"; }

# --- the pane ----------------------------------------------------------------------------------
pane_into() { into "$1" "$(tm display -p -t t:pk '#{pane_pid}')"; }
# start COMMAND: typed in the pane, run by $W/run (pkexec's subject, its parent, is that
# script), which records its exit status and `stty -g` before and after. Clears the traces first.
start() {
    rm -f "$W/u/before" "$W/u/after" "$W/u/rc" "$SOCK"
    : > "$T/syslog"
    [ ! -e "$W/u/agent.log" ] || : > "$W/u/agent.log"   # (the agent appends: O_APPEND)
    PK_MARK=$(stat -c %s "$T/polkitd.log")
    tm send-keys -t t:pk "clear; $W/run $W/u $1" Enter
    wait_file "$W/u/before"
}
# finish [SECONDS]: until the command has ended (bounded: then Ctrl-C, so that a command left
# waiting cannot spill into the next case), then what everybody saw into OUT.
finish() {
    wait_file "$W/u/after" "${1:-15}" || { tm send-keys -t t:pk C-c; wait_file "$W/u/after" 3; }
    view
}
view() {
    SCREEN=$(screen pk)
    OUT="screen:"$'\n'"$SCREEN"$'\n'"dialog:"$'\n'"$(dialog)"$'\n'"syslog:"$'\n'"$(sed 's/<[0-9]*>/\n/g' "$T/syslog" | grep -v '^$')"
}
screen_has() { grep -qF -- "$1" <<< "$SCREEN"; }
screen_lacks() { ! screen_has "$1"; }
rc_is() { [ "$(cat "$W/u/rc" 2>/dev/null)" = "$1" ]; }
ran_as_root() { grep -qx '0' <<< "$SCREEN" && rc_is 0; }   # `id -u` printed 0
not_ran() { ! grep -qx '0' <<< "$SCREEN" && ! rc_is 0; }
stty_same() { [ -s "$W/u/before" ] && cmp -s "$W/u/before" "$W/u/after"; }
touch_finger() { timeout 5 python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null 2>&1; }
# Processes of this namespace named NAME (comm), zombies left out (this VM's init does not reap).
ours_named() {
    local p st
    for p in $(pgrep -x "$1"); do
        [ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" = "$NSMNT" ] || continue
        st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$p/stat" 2>/dev/null)
        [ -n "$st" ] && [ "$st" != Z ] && echo "$p"
    done
}
# No touchauth helper and no polkit-agent-helper-1 left in the namespace (waits up to 3 s).
no_helper_left() {
    local i
    for i in $(seq 150); do
        [ -z "$(ours_named touchauth)$(ours_named polkit-agent-he)" ] && return 0
        sleep 0.02
    done
    OUT+=$'\n'"left: touchauth $(ours_named touchauth| tr '\n' ' ') polkit-agent-helper-1 $(ours_named polkit-agent-he | tr '\n' ' ')"
    return 1
}
say_dialog() { echo "#   the dialog showed: $(grep -E '^(info|error|request|completed)' "$W/u/agent.log" | paste -sd '|' | sed 's/|/ | /g')"; }
say_screen() { echo "#   the terminal showed: $(grep -v '^\$' <<< "$SCREEN" | paste -sd '|' | sed 's/|/ | /g')"; }
say_module() {
    local l
    l=$(sed 's/<[0-9]*>/\n/g' "$T/syslog" | grep -o 'pam_touchauth(polkit-1:auth): .*' | sed 's/^pam_touchauth(polkit-1:auth): //' | paste -sd ';' | sed 's/;/; /g')
    echo "#   module: ${l:-(nothing logged)}"
}

PKEXEC="pkexec --disable-internal-agent id -u"
# What polkitd says for pkexec's action asked of a process (no program named: the action's own).
PKCHECK_MESSAGE="Authentication is required to run a program as another user"
TTY_PKEXEC="$W/polkit_tty.sh id -u"
# polkit 122 (Debian 12) names the program, 126 (Debian 13) the whole command line.
POLKIT_VERSION=$(dpkg-query -W -f='${Version}' polkitd 2> /dev/null)
if dpkg --compare-versions "${POLKIT_VERSION:-0}" ge 125; then
    HEADER="Authentication is needed to run \`/usr/bin/id -u' as the super user"
else
    HEADER="Authentication is needed to run \`/usr/bin/id' as the super user"
fi

# gui_refused NAME REASON: the dialog goes to the password at once (no fingerprint line, the
# sensor never armed, the module logged REASON); the password typed there runs the command.
gui_refused() {
    local name=$1 why=$2
    wait_dialog "request Password:" 10
    view
    check "$name -> the dialog asks for the password at once" dialog_has "request Password: "
    check "$name -> no fingerprint prompt in the dialog" dialog_lacks "$PROMPT"
    check "$name -> the sensor was never armed" never_armed
    check "$name -> the module logged why: $why" logged "$why"
    say_dialog; say_module
    press "password $TPASS"
    finish
    check "$name -> the password -> pkexec ran id -u as root" ran_as_root
}
# requests: how many password requests the dialog got (a second one empties its field).
requests() { grep -c '^request ' "$W/u/agent.log" 2>/dev/null; }
# gui_armed NAME [MESSAGE]: the dialog shows the prompt and its password field together, the
# sensor armed; polkitd's MESSAGE above them (pkexec's header by default).
gui_armed() {
    local name=$1 message=${2:-$HEADER} i
    wait_dialog "info $PROMPT" 10 && wait_dialog "request Password: " 5
    for i in $(seq 250); do armed && break; sleep 0.02; done
    view
    check "$name -> the dialog shows the fingerprint prompt and its password field at once" \
        eval 'dialog_has "info $PROMPT" && dialog_has "request Password: "'
    # What the touch approves comes from polkit, not from us (docs/POLICY.md#what-the-touch-approves).
    check "$name -> ...under what it approves, from polkitd: $message" dialog_has "message $message"
    check "$name -> the sensor is armed" armed
}
# gui_offered NAME: gui_armed, then the finger runs the command with nothing typed.
gui_offered() {
    local name=$1
    gui_armed "$name"
    touch_finger
    finish
    check "$name -> the finger -> pkexec ran id -u as root, nothing typed, one request only" \
        eval 'ran_as_root && [ "$(requests)" = 1 ] && dialog_has "completed 1"'
    say_dialog
}
# tty_refused NAME REASON: pkttyagent asks for the password at once; typed, it runs the command.
tty_refused() {
    local name=$1 why=$2
    wait_for pk "Password:" 10
    view
    check "$name -> the text agent asks for the password at once" screen_has "Password:"
    check "$name -> no fingerprint line" screen_lacks "$PROMPT"
    check "$name -> the sensor was never armed" never_armed
    check "$name -> the module logged why: $why" logged "$why"
    say_module
    tm send-keys -t t:pk -l "$TPASS"; tm send-keys -t t:pk Enter
    finish
    check "$name -> the password -> AUTHENTICATION COMPLETE, id -u printed 0" \
        eval 'screen_has "==== AUTHENTICATION COMPLETE ====" && ran_as_root'
    check "$name -> stty -g identical" stty_same
    say_screen
}
tty_offered() {  # (the fixed module only) the text agent shows the prompt; the finger runs it
    local name=$1
    wait_for pk "Info: $PROMPT" 10
    view
    check "$name -> the text agent shows the fingerprint prompt and the terminal's hint" \
        eval 'screen_has "Info: $PROMPT" && screen_has "Info: [Enter Password] press Enter, or type your password"'
    check "$name -> the sensor is armed" armed
    touch_finger
    finish
    check "$name -> the finger -> AUTHENTICATION COMPLETE, id -u printed 0, no password asked" \
        eval 'screen_has "==== AUTHENTICATION COMPLETE ====" && ran_as_root && screen_lacks "Password:"'
    check "$name -> stty -g identical" stty_same
    say_screen
}

# in_session7 TYPE: the case's start where the user sits at local active session 7 of TYPE: the
# fake logind says so, pkexec's pane is in the session's scope, and no agent of an earlier case.
in_session7() {
    agent_stop
    logind_front 7 "$TUID" TYPE="$1"
    pane_into "$(scope 7)"
}
# x11_agent: in_session7 x11, and the dialog's agent inside the session (section 1's layout).
x11_agent() {
    in_session7 x11
    agent_start "$(scope 7)" --session 7
}

# =============================================================================================
echo "# 1. a local active X11 session, the agent inside it (no terminal: a desktop's dialog)"
x11_finger() {
    conf
    fresh_state
    x11_agent
    OUT=$(dialog; cat "$W/agent.err")
    check "(setup) the agent registered for session 7" dialog_has registered
    start "$PKEXEC"
    gui_offered "x11 session, agent in it"
    check "(setup) ...polkitd saw a local active session" polkitd_said "subject is in session 7 (local=1 active=1)"
    check "(setup) ...and asked our agent (the rule's AUTH_SELF)" polkitd_said "challenge (implicit_authorization = auth_self)"
    check "...no hint to wait for: the field is the way to the password" dialog_lacks "[Enter Password]"
    check "...the dialog completed, authorized" dialog_has "completed 1"
    check "...the audit line: success" logged "user $TUSER, service polkit-1: success, strikes 0"
    check "...polkitd: authenticated as the user, one shot" \
        polkitd_said "successfully authenticated as unix-user:$TUSER to gain ONE-SHOT authorization"
    check "...no helper left" no_helper_left
}
case_ "1. x11 session, agent in it: the finger" x11_finger

echo "# 2. the same session, the password: typed while armed, after the timeout, after 3 wrong fingers"
x11_timeout() {
    conf "timeout=2"
    fresh_state
    x11_agent
    start "$PKEXEC"
    wait_dialog "error Fingerprint timed out" 15
    view
    check "no finger -> the prompt, then 'Fingerprint timed out', then the password field" \
        eval 'dialog_has "info $PROMPT" && dialog_has "error Fingerprint timed out" && dialog_has "request Password: "'
    check "no finger -> the field stays: still one request, none after the timeout" eval '[ "$(requests)" = 1 ]'
    check "no finger -> the sensor was armed" armed
    say_dialog
    press "password $TPASS"
    finish
    check "no finger, then the password -> pkexec ran id -u as root" ran_as_root
    conf
}
case_ "2. no finger: the timeout, then the password" x11_timeout

x11_wrong() {
    conf
    fresh_state
    x11_agent
    start "$PKEXEC"
    wait_dialog "info $PROMPT" 10
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN nobody" "SCAN nobody" "SCAN nobody" > /dev/null 2>&1
    wait_dialog "error Fingerprint not recognized" 10
    view
    check "3 wrong fingers -> 'Not recognized, try again' twice, 'Fingerprint not recognized', the password field" \
        eval '[ "$(grep -cxF "error Not recognized, try again" "$W/u/agent.log")" = 2 ] &&
              dialog_has "error Fingerprint not recognized" && dialog_has "request Password: "'
    check "3 wrong fingers -> the audit line: authenticationFailed, strikes 3" \
        logged "service polkit-1: authenticationFailed, strikes 3"
    check "3 wrong fingers -> the field stays: still one request" eval '[ "$(requests)" = 1 ]' 
    say_dialog
    press "password not the password"
    finish
    check "3 wrong fingers, then a wrong password -> nothing ran, pkexec: Not authorized (status 127)" \
        eval 'not_ran && screen_has "Error executing command as another user: Not authorized" && rc_is 127'
    fresh_state
}
case_ "2. three wrong fingers, then a wrong password" x11_wrong

# The password typed into the field while the finger is armed: the sensor stops at once, no strike,
# and pam_unix takes what was typed (PAM_AUTHTOK) with no second request.
x11_typed() {
    conf
    fresh_state
    x11_agent
    start "$PKEXEC"
    gui_armed "typed while armed"
    local t0
    t0=$(now_ms)
    press "password $TPASS"
    wait_dialog "completed" 10
    echo "#   the password typed while armed -> dialog completed in $(($(now_ms) - t0)) ms"
    finish
    check "typed while armed -> pkexec ran id -u as root, one request only" \
        eval 'ran_as_root && [ "$(requests)" = 1 ] && dialog_has "completed 1"'
    check "typed while armed -> the audit line: userFallback, no strike" \
        logged "user $TUSER, service polkit-1: userFallback, strikes -"
    OUT=$(cat "$T/state/$TUID" 2>&1; sed 's/<[0-9]*>/\n/g' "$T/syslog" | grep touchauth)
    check "typed while armed -> no strike on disk" eval '[ "$(strikes)" = 0 ]'
    check "typed while armed -> no helper left" no_helper_left
    say_dialog
}
case_ "2. the password typed into the field while the finger is armed" x11_typed

# A wrong password typed while armed: the field's answer is only ever a password for pam_unix,
# never a verdict of ours.
x11_typed_wrong() {
    conf
    fresh_state
    x11_agent
    start "$PKEXEC"
    gui_armed "a wrong password typed while armed"
    press "password not the password"
    finish
    check "a wrong password typed while armed -> nothing ran, pkexec: Not authorized (status 127)" \
        eval 'not_ran && screen_has "Error executing command as another user: Not authorized" && rc_is 127'
    check "...the audit line: userFallback (the sensor stopped), then pam_unix refused" \
        eval 'logged "service polkit-1: userFallback, strikes -" && ! logged "service polkit-1: success"'
}
case_ "2. a wrong password typed while armed" x11_typed_wrong

# The field sent empty (the dialog's OK with nothing typed): the next module asks, a new request.
x11_empty() {
    conf
    fresh_state
    x11_agent
    start "$PKEXEC"
    gui_armed "sent empty"
    press "password "
    local i
    for i in $(seq 250); do [ "$(requests)" = 2 ] && break; sleep 0.02; done
    view
    check "sent empty -> the sensor stops, pam_unix asks: a second request" eval '[ "$(requests)" = 2 ]'
    check "sent empty -> the audit line: userFallback" logged "service polkit-1: userFallback, strikes -"
    press "password $TPASS"
    finish
    check "sent empty, then the password -> pkexec ran id -u as root" ran_as_root
}
case_ "2. the field sent empty: the password module asks again" x11_empty

# How password managers ask (1Password, KeePassXC, Bitwarden): CheckAuthorization with user
# interaction, from a process of the session; the same dialog, the same finger.
x11_pkcheck() {
    conf
    fresh_state
    x11_agent
    start "pkcheck --action-id org.freedesktop.policykit.exec --process \$\$ --allow-user-interaction"
    gui_armed "pkcheck --allow-user-interaction" "$PKCHECK_MESSAGE"
    touch_finger
    finish
    check "pkcheck --allow-user-interaction -> the finger -> authorized (status 0), nothing typed" \
        eval 'rc_is 0 && [ "$(requests)" = 1 ] && dialog_has "completed 1"'
    say_dialog
}
case_ "1. pkcheck --allow-user-interaction: the finger" x11_pkcheck

# The field's time: the request sent -> the dialog's field (ms), with our line in the stack and
# without it (pam_unix alone), the same run. Figures for the note; nothing asserted on them.
x11_field_time() {
    conf
    fresh_state
    x11_agent
    local t0 with without
    t0=$(now_ms); start "$PKEXEC"; wait_dialog "request Password: " 10; with=$(($(now_ms) - t0))
    check "the field's time: with touchauth, the field came" dialog_has "request Password: "
    touch_finger
    finish
    cp "$T/pam-polkit" "$T/pam-polkit.ours"
    printf '%s\n' "auth required pam_unix.so nodelay" "account required pam_permit.so" \
        "session required pam_permit.so" > "$T/pam-polkit"   # in place: the bind mount sees it
    x11_agent
    t0=$(now_ms); start "$PKEXEC"; wait_dialog "request Password: " 10; without=$(($(now_ms) - t0))
    check "the field's time: without touchauth, the field came" dialog_has "request Password: "
    press "password $TPASS"
    finish
    cat "$T/pam-polkit.ours" > "$T/pam-polkit"
    echo "#   pkexec typed -> the dialog's password field: $with ms with touchauth, $without ms without"
}
case_ "1. the field's time, with and without touchauth" x11_field_time

echo "# 3. a locked user: the password at once, the sensor never armed"
x11_locked() {
    conf
    x11_agent
    set_state 5 "$(date +%s)"   # five strikes, locked now (a password now, this boot)
    OUT=$(cat "$T/state/$TUID" 2>&1)
    check "(setup) the state file: 5 strikes, locked" eval 'grep -q "^strikes 5$" "$T/state/$TUID" && ! grep -q "^locked_at -$" "$T/state/$TUID"'
    start "$PKEXEC"
    wait_dialog "request Password:" 10
    view
    check "locked -> the dialog says why, then the password field at once" \
        eval 'dialog_has "info $LOCKED" && dialog_has "request Password: "'
    check "locked -> no fingerprint prompt" dialog_lacks "$PROMPT"
    check "locked -> the sensor was never armed" never_armed
    check "locked -> the audit line: biometryLockout, strikes 5" logged "service polkit-1: biometryLockout, strikes 5"
    say_dialog
    press "password $TPASS"
    finish
    check "locked, then the password -> pkexec ran id -u as root" ran_as_root
    fresh_state   # (this stack has no authsucc line: the password cleared nothing)
}
case_ "3. a locked user" x11_locked

echo "# 4. cancel at the fingerprint prompt: the dialog's Cancel, Ctrl-C in pkexec's terminal"
x11_cancel() {
    conf
    fresh_state
    x11_agent
    start "$PKEXEC"
    wait_dialog "info $PROMPT" 10
    check "(control) a helper of ours runs while the prompt is up" test -n "$(ours_named touchauth)"
    press cancel
    finish
    check "Cancel -> nothing ran; pkexec: Request dismissed (status 126)" \
        eval 'not_ran && screen_has "Error executing command as another user: Request dismissed" && rc_is 126'
    check "Cancel -> no helper left (the agent SIGTERMs polkit-agent-helper-1, ours dies with it)" no_helper_left
    say_screen
}
case_ "4. the dialog's Cancel" x11_cancel
x11_ctrl_c() {
    conf
    fresh_state
    x11_agent
    start "$PKEXEC"
    wait_dialog "info $PROMPT" 10
    tm send-keys -t t:pk C-c
    finish
    check "Ctrl-C in pkexec's terminal -> nothing ran (status 130)" eval 'not_ran && rc_is 130'
    check "Ctrl-C -> polkitd cancelled the dialog (pkexec left the bus)" wait_dialog "cancelled-by-polkitd" 5
    check "Ctrl-C -> no helper left" no_helper_left
    check "Ctrl-C -> a touch now authenticates nobody (nobody listens on the sensor)" \
        eval '! timeout 2 python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" 2>/dev/null'
}
case_ "4. Ctrl-C in pkexec's terminal at the dialog's prompt" x11_ctrl_c

echo "# 5. GNOME and KDE: agent and terminal in user@$TUID.service, outside the (Wayland) session"
gnome_kde() {
    conf
    fresh_state
    agent_stop
    logind_front 7 "$TUID" TYPE=wayland
    pane_into "$USER_APP"
    agent_start "$USER_SERVICE" --session 7
    OUT=$(dialog; cat "$W/agent.err")
    check "(setup) polkitd took the agent for session 7 from outside it (its uid's display)" dialog_has registered
    start "$PKEXEC"
    # The agent's dialog is on the screen of the user who sits at the seat (presence.c).
    gui_offered "GNOME/KDE layout"
    check "(setup) ...polkitd saw the local active session" polkitd_said "subject is in session 7 (local=1 active=1)"
    agent_stop
}
case_ "5. GNOME/KDE layout" gnome_kde

echo "# 6. polkit's text agent (pkttyagent) in pkexec's terminal, local active sessions"
tty_x11() {
    conf
    fresh_state
    in_session7 x11
    start "$TTY_PKEXEC"
    # The helper's controlling terminal is pkexec's, its stdin the agent's pipe: pkttyagent reads
    # that terminal, and the module owns it as at sudo (terminal.h, terminal_open_for).
    tty_offered "text agent, x11 session"
    check "...the text agent's header" eval 'screen_has "==== AUTHENTICATING FOR org.freedesktop.policykit.exec ====" &&
        screen_has "$HEADER" && screen_has "Authenticating as: $TUSER"'
}
case_ "6. text agent, x11 session" tty_x11
tty_console() {
    conf
    fresh_state
    in_session7 tty
    start "$TTY_PKEXEC"
    tty_offered "text agent, tty session (a text console)"
}
case_ "6. text agent, tty session (a text console)" tty_console
# The module owns pkttyagent's terminal as sudo's: Enter, typing, Ctrl-C (a byte, ISIG off).
    tty_enter() {
        conf
        fresh_state
        in_session7 tty
        start "$TTY_PKEXEC"
        wait_for pk "Info: $PROMPT" 10
        tm send-keys -t t:pk Enter
        wait_for pk "Password:" 10
        tm send-keys -t t:pk -l "$TPASS"; tm send-keys -t t:pk Enter
        finish
        check "text agent: Enter -> the agent's password prompt; the password -> id -u printed 0" \
            eval 'screen_has "Password:" && ran_as_root && stty_same'
    }
    case_ "6. text agent: Enter, then the password" tty_enter
    tty_typed() {
        conf
        fresh_state
        in_session7 tty
        start "$TTY_PKEXEC"
        wait_for pk "Info: $PROMPT" 10
        tm send-keys -t t:pk -l "$TPASS"; tm send-keys -t t:pk Enter
        finish
        check "text agent: the password typed at the fingerprint prompt -> id -u printed 0, no second prompt, not echoed" \
            eval 'ran_as_root && screen_lacks "Password:" && screen_lacks "$TPASS" && stty_same'
        say_screen
    }
    case_ "6. text agent: the password typed at the fingerprint prompt" tty_typed
tty_ctrl_c() {
    conf
    fresh_state
    in_session7 tty
    start "$TTY_PKEXEC"
    wait_for pk "Info: $PROMPT" 10
    tm send-keys -t t:pk C-c
    finish
    # Today Ctrl-C is the terminal's SIGINT for the whole foreground group (status 130); with the
    # module owning the terminal it is our userCancel: PAM_ABORT, polkit-agent-helper-1 given its
    # SIGINT back, the agent's AUTHENTICATION FAILED and pkexec's "Not authorized" (status 127).
    check "Ctrl-C at the text agent's prompt -> nothing ran (status $(cat "$W/u/rc" 2>/dev/null))" not_ran
    check "Ctrl-C -> no helper left" no_helper_left
    check "Ctrl-C -> stty -g identical" stty_same
    say_screen
}
case_ "6. Ctrl-C at the text agent's prompt" tty_ctrl_c

echo "# 7. remote sessions: never offered, whichever agent"
# remote9 KEY=VALUE...: the user's remote session 9 (no seat: seat0 has no active session, the
# user no display), pkexec's pane in its scope, no agent of an earlier case.
remote9() {
    agent_stop
    logind_none
    logind_session 9 "$TUID" REMOTE=1 REMOTE_HOST=127.0.0.1 SEAT= "$@"
    logind_seat0 "" "" ""
    logind_user "$TUID" 9
    pane_into "$(scope 9)"
}
remote_x11() {
    conf
    fresh_state
    remote9 SERVICE=xrdp TYPE=x11
    agent_start "$(scope 9)" --session 9
    OUT=$(dialog; cat "$W/agent.err")
    check "(setup) the agent registered for remote session 9" dialog_has registered
    start "$PKEXEC"
    gui_refused "remote X11 session (xrdp), agent in it" "remote session (logind)"
    check "(setup) ...polkitd saw a session that is not local" polkitd_said "subject is in session 9 (local=0 active=1)"
    agent_stop
}
case_ "7. remote X11 session (xrdp), agent in it" remote_x11
remote_tty() {
    conf
    fresh_state
    remote9 SERVICE=sshd TYPE=tty
    start "$TTY_PKEXEC"
    tty_refused "remote tty session (ssh from loopback, no SSH_* anywhere), text agent" "remote session (logind)"
}
case_ "7. remote tty session (ssh from loopback), text agent" remote_tty

echo "# 8. no logind (this VM's state): polkitd still asks; the module has nobody to answer"
# no_logind: the case's start without logind: pkexec's pane in the cgroup root, no agent.
no_logind() { agent_stop; logind_none; pane_into "$CG"; }
no_logind_tty() {
    conf
    fresh_state
    no_logind
    agent_start "$CG" --session 7
    OUT=$(dialog)
    check "(setup) a desktop's agent cannot even register without logind" \
        dialog_has "register-failed GDBus.Error:org.freedesktop.PolicyKit1.Error.Failed: Cannot determine session the caller is in"
    agent_stop
    start "$TTY_PKEXEC"
    tty_offered "no logind, text agent (as sudo in a terminal: terminal_without_logind = yes)"
    check "(setup) ...polkitd found no session and still asked (the rule's AUTH_SELF)" \
        eval '! polkitd_said "subject is in session" && polkitd_said "challenge (implicit_authorization = auth_self)"'
}
case_ "8. no logind, text agent" no_logind_tty

# An agent with no terminal registered for pkexec's parent process (as an agent must where no
# logind tells sessions): without logind nothing shows whose screen its dialog is on.
no_logind_dialog() {
    conf
    fresh_state
    no_logind
    rm -f "$W/u/subject" "$W/u/go"
    mkfifo -m 0666 "$W/u/go"
    # pkexec's subject is its parent: this sh, which waits until the agent is registered for it.
    start "sh -c 'echo \$\$ > $W/u/subject; read go < $W/u/go; $PKEXEC'"
    wait_file "$W/u/subject" 5
    agent_start "$CG" --process "$(cat "$W/u/subject")"
    OUT=$(dialog; cat "$W/agent.err")
    check "(setup) without logind an agent registers for pkexec's parent process" dialog_has registered
    timeout 5 sh -c 'echo go > "$1"' sh "$W/u/go"
    gui_refused "no logind, a dialog's agent (no terminal)" "nobody at a terminal or a screen to answer"
    agent_stop
    rm -f "$W/u/go"
}
case_ "8. no logind, a dialog's agent for pkexec's shell" no_logind_dialog

# pkexec clears its environment before its own agent spawns the helper: the helper's start-up
# environment has no SSH_* even from an ssh login: the module reads its parent's (the agent's) too.
no_logind_ssh() {
    conf
    fresh_state
    no_logind
    start "env SSH_CONNECTION='203.0.113.9 50000 192.0.2.1 22' pkexec id -u"
    wait_for pk "Password:" 10
    view
    WHY="remote session (SSH_* in the PAM or process environment)"
    check "no logind, SSH_CONNECTION in pkexec's environment, its own agent -> the password at once, never armed" \
        eval 'screen_has "Password:" && screen_lacks "$PROMPT" && never_armed'
    check "...the module logged why: $WHY" logged "$WHY"
    say_module
    tm send-keys -t t:pk C-c
    finish
    check "...Ctrl-C at the password -> nothing ran" not_ran
}
case_ "8. no logind, SSH_CONNECTION in pkexec's environment, its own agent" no_logind_ssh

echo "# 9. pkexec's own text agent (no other agent): polkit 122's 'No session for cookie' (fixed in 125)"
own_agent() {
    conf
    fresh_state
    in_session7 x11
    start "pkexec id -u"
    wait_for pk "Info: $PROMPT" 10
    view
    check "pkexec's own agent -> the fingerprint prompt, armed" eval 'screen_has "Info: $PROMPT" && armed'
    touch_finger
    ANSWER="the finger"
    finish
    if dpkg --compare-versions "${POLKIT_VERSION:-0}" ge 125; then
        # polkit 125 (f93c746) matches the agent's response to its session whatever its creator.
        check "...$ANSWER -> AUTHENTICATION COMPLETE, id -u printed 0 (polkit $POLKIT_VERSION)" \
            eval 'screen_has "==== AUTHENTICATION COMPLETE ====" && ran_as_root'
    else
        check "...$ANSWER -> 'No session for cookie', AUTHENTICATION FAILED, Not authorized (127), nothing ran" \
            eval 'screen_has "error response to PolicyKit daemon: GDBus.Error:org.freedesktop.PolicyKit1.Error.Failed: No session for cookie" &&
                  screen_has "==== AUTHENTICATION FAILED ====" && screen_has "Not authorized" && rc_is 127 && not_ran'
        check "...polkitd: the agent's creator is root (pkexec's bus uid), while the helper answers as the user" \
            polkitd_said "user of caller is unix-user:root"
    fi
    say_screen
}
case_ "9. pkexec's own text agent (no other agent)" own_agent

# =============================================================================================
cleanup
check "(cleanup) the tmux server is gone" sh -c "! tmux -S '$TMUX_SOCK' ls 2>/dev/null"
# ns_gone: each of the namespace's processes gone or a zombie, within 5 s of cleanup's kill (a
# suite that ends right after a short case gets here before polkitd has died).
ns_gone() {
    local p st deadline=$(($(now_ms) + 5000))
    for p in $NS_PIDS; do
        while st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$p/stat" 2> /dev/null) && [ -n "$st" ] && [ "$st" != Z ]; do
            [ "$(now_ms)" -lt "$deadline" ] || { OUT="pid $p ($st) still there"; return 1; }
            sleep 0.05
        done
    done
}
check "(cleanup) polkitd and dbus-daemon of the namespace are gone" ns_gone
check "(cleanup) no cgroup directory of ours left" sh -c "! ls -d $OURS 2>/dev/null | grep -q ."
check "(cleanup) the packaged /usr/lib/pam.d/polkit-1 was never changed" \
    test "$(sha256sum < /usr/lib/pam.d/polkit-1)" = "$PAM_PKG_SUM"
check "(cleanup) nothing mounted over /run/dbus, /run/systemd or /dev out here, /dev/log as it was" \
    eval 'test "$(mounts_at /run/dbus /run/systemd)" = "$MOUNTS_BEFORE" && test "$(stat -c "%d:%i" /dev)" = "$DEV_BEFORE" &&
          test "$(stat -c "%F %i" /dev/log 2>/dev/null || echo none)" = "$DEVLOG_BEFORE"'
echo "# run time $(($(date +%s) - STARTED)) s (module $MODULE, helper $HELPER)"
summary
