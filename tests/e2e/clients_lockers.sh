#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Screen lockers for real (the clients issue): a terminal locker, vlock, in tmux, and two X
# screen lockers, i3lock and xsecurelock, under Xvfb inside a fake local graphical logind
# session, keys sent with xdotool, the screen read back with tesseract (what the user saw).
# A locker runs PAM as the user, so the fingerprint needs the setuid helper (install.sh
# --setuid): here a setuid-root copy of the helper in a root-owned 0755 directory, named by the
# root-owned default config (/etc/security/touchauth.conf) that the setuid helper trusts.
#
# Everything runs in one private mount namespace (a sleeper holds it) that bind-mounts over
# /etc/pam.d (a copy with our vlock, i3lock and xsecurelock services), /etc/security (a copy
# with our touchauth.conf) and /run/systemd (the fake logind state): the real files are never
# changed. The vsensor socket proves whether the sensor was armed: the helper creates it in
# fp_device_open, so no socket = never armed. Run: TOUCHAUTH_E2E_USER=NAME bash THIS.
source "$(dirname "$0")/lib.sh"
source "$E2E/clients/locker_x11.sh"
# keep_shot NAME: the screenshot $W/NAME.png for docs/ kept (keep_png) in $T, or with
# TOUCHAUTH_SCREENSHOTS=DIR there (a test run never writes into the checkout by itself); KEPT:
# where it went (not SHOT: the X kit's screenshot, clients/locker_x11.sh).
keep_shot() { KEPT="${TOUCHAUTH_SCREENSHOTS:-$T}/$1.png"; [ ! -s "$W/$1.png" ] || keep_png "$W/$1.png" "$KEPT"; }
source "$E2E/clients/locker_wayland.sh"
STARTED=$(date +%s)
OUT=""
gui_packages vlock i3lock xsecurelock xvfb xauth x11-utils xdotool imagemagick sway swaylock wtype grim \
    tesseract-ocr tesseract-ocr-eng tmux util-linux python3 ||
    { echo "cannot install the clients"; echo "0 passed, 1 failed"; exit 1; }
for tool in tmux unshare nsenter setpriv vlock i3lock xsecurelock Xvfb xdotool import tesseract sway swaylock wtype grim; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }

two_users
TIMEOUT=8                       # the fingerprint's timeout here (30 s by default)
mkdir -m 0700 "$T/state"

W=$(mktemp -d /tmp/touchauth-lockers.XXXXXX)
chmod 0755 "$W"
mkdir -m 0755 "$W/bin" "$W/etc-security" "$W/rs"
mkdir -m 0777 "$W/u"            # the test user's traces and home
SUID="$W/bin/touchauth"         # what install.sh --setuid makes: root, 4755
PLAIN="$W/bin/touchauth-plain"  # the default install: root, 0755 (through a recorder, below)
cp "$HELPER" "$SUID"; chmod 4755 "$SUID"
# The plain helper is started through a script that records each start in $W/u/plain.started:
# a helper that cannot read the prints ends within milliseconds, too fast for a watcher that
# polls, and its name is not the setuid one's. plain_started: it was started.
cp "$HELPER" "$W/bin/touchauth-plain-bin"; chmod 0755 "$W/bin/touchauth-plain-bin"
printf '#!/bin/sh\necho "$$" >> %s/u/plain.started\nexec %s/bin/touchauth-plain-bin "$@"\n' "$W" "$W" > "$PLAIN"
chmod 0755 "$PLAIN"
plain_started() { [ -s "$W/u/plain.started" ]; }
# Debian's vlock-main is setuid root; a copy without the bit is vlock as other systems ship
# it, running PAM as the user.
cp /usr/sbin/vlock-main "$W/bin/vlock-main"; chmod 0755 "$W/bin/vlock-main"
CONF="$T/touchauth.conf"        # enroll() reads this one; the namespace sees a copy as the default
cp -a /etc/security/. "$W/etc-security/"
conf() {  # conf HELPER [key=value...]: root's config, the one the setuid helper reads
    write_config "$CONF" "helper=$1" "state_dir=$T/state" "timeout=$TIMEOUT" "password_after_boot=no" \
        "password_max_age=0" "password_after_enroll_change=no" "${@:2}"
    cat "$CONF" > "$W/etc-security/touchauth.conf"
}
conf "$SUID"
enroll_two_users
# (fresh_state, strikes, set_state, armed, never_armed: tests/e2e/kit/state.sh)

# /etc/pam.d: a copy, with the three lockers' services as the lines the README gives.
cp -a /etc/pam.d "$W/pam.d"
for svc in vlock i3lock swaylock xsecurelock; do
    printf '%s\n' "auth [success=done abort=die default=ignore] $MODULE" \
        "auth required pam_unix.so try_first_pass nodelay" "account required pam_permit.so" \
        "session required pam_permit.so" > "$W/pam.d/$svc"
done

# The fake logind (tests/e2e/kit/logind.sh): $W/rs is /run/systemd in the namespace.
# logind_none: as this VM (no seat0: logind not running). logind_x11 ACTIVE: seat0 with session
# 37, the test user's local x11 session, active (1) or in the background (0: someone else's
# session 38 in front).
SID=37
SCOPE="$CG/user.slice/user-$TUID.slice/session-$SID.scope"
LOGIND="$W/rs"
logind_x11() {
    local active=$1 front=$SID state=active
    [ "$active" = 1 ] || { front=38 state=online; }
    logind_none
    logind_seat0 "$front" "" "$SID 38"
    logind_session "$SID" "$TUID" ACTIVE="$active" STATE=$state TYPE=x11 DISPLAY=":$XN"
    logind_session 38 0 ACTIVE=$((1 - active)) SCOPE=
    logind_user "$TUID" "$SID" "$SID" "$state"
}
logind_none

# The cgroup directories this run makes (deepest first), removed at the end.
OURS=""
for d in "$SCOPE" "$CG/user.slice/user-$TUID.slice" "$CG/user.slice"; do [ -d "$d" ] || OURS+=" $d"; done
[ -d "$SCOPE" ] && { echo "$SCOPE exists already: not ours to use"; echo "0 passed, 1 failed"; exit 1; }
cg_remove() {  # cg_remove DIR: waits (2 s at most) for it to empty, moves what is left to the root
    local p i
    for i in $(seq 100); do [ -s "$1/cgroup.procs" ] || break; sleep 0.02; done
    for p in $(cat "$1/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done
    rmdir "$1" 2>/dev/null
}
# in-session CMD...: CMD in the test user's session 37 (its cgroup scope), as a locker started
# from that session is.
cat > "$W/bin/in-session" <<EOF
#!/bin/sh
mkdir -p "$SCOPE" && echo \$\$ > "$SCOPE/cgroup.procs" || exit 125
exec "\$@"
EOF
chmod 0755 "$W/bin/in-session"

TMUX_SOCK="$W/tmux.sock"
NSPID="" XPID="" LOCKER=""
# in_ns_pids: every process in our mount namespace: the sleeper, tmux, the lockers and what
# they leave behind when they are ended (xsecurelock's saver: sleep and pgrp_placeholder,
# reparented to init, out of reach of a walk down from the locker).
NS_MNT=""
in_ns_pids() {
    [ -n "$NS_MNT" ] || return 0
    local p
    for p in /proc/[0-9]*; do [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$NS_MNT" ] && echo "${p#/proc/}"; done
}
cleanup() {
    sway_stop
    [ -n "$LOCKER" ] && kill "$LOCKER" 2>/dev/null
    tm kill-server 2>/dev/null
    [ -n "$XPID" ] && kill "$XPID" 2>/dev/null
    local pids
    pids=$(in_ns_pids)
    [ -n "$pids" ] && kill $pids 2>/dev/null
    wait 2>/dev/null
    local d
    for d in $OURS; do [ -d "$d" ] && cg_remove "$d"; done
    return 0
}
trap 'cleanup; rm -rf "$W" "$T"' EXIT

unshare -m sh -c 'mount --bind "$1" /etc/pam.d && mount --bind "$2" /etc/security &&
    mount --bind "$3" /run/systemd && exec sleep 100000' sh "$W/pam.d" "$W/etc-security" "$W/rs" &
NSPID=$!
for _ in $(seq 200); do
    [ "$(readlink /proc/$NSPID/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] &&
        nsenter -t "$NSPID" -m -r -w grep -q "$SUID" /etc/security/touchauth.conf 2>/dev/null &&
        nsenter -t "$NSPID" -m -r -w test -e /etc/pam.d/xsecurelock && break
    sleep 0.01
done
# -r -w: the sleeper's root and working directory as well. Entering a mount namespace (setns)
# sets the root to the namespace's own: inside a chroot (debian13.sh's trixie root) plain -m
# would land outside it.
ns() { nsenter -t "$NSPID" -m -r -w "$@"; }
NS_MNT=$(readlink "/proc/$NSPID/ns/mnt")
check "(setup) the namespace sees our stacks, config and logind state" \
    ns sh -c "grep -q pam_touchauth /etc/pam.d/vlock && grep -q '$SUID' /etc/security/touchauth.conf && test -d /run/systemd/seats -a ! -e /run/systemd/seats/seat0"
# gone PID: not running (a zombie counts: this VM's init does not reap orphans).
gone() { local st; st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null); [ -z "$st" ] || [ "$st" = Z ]; }
wait_gone() { local _; for _ in $(seq $((${2:-5} * 50))); do gone "$1" && return 0; sleep 0.02; done; return 1; }
PROMPT="Place your finger on the fingerprint reader"
HINT="[Enter Password] press Enter, or type your password"
helper_status() { OUT="helper $1:"$'\n'"$(grep -E '^(Uid|Gid):' "/proc/$1/status" 2>/dev/null)"; }
uid_line() { grep -q "^Uid:[[:space:]]*$1[[:space:]]*$2[[:space:]]*$3[[:space:]]*$4\$" <<< "$OUT"; }


# The services the cases share, each started by the first case that needs it (a filtered run
# starts only those its cases use) and ended by cleanup: Xvfb (need_x) and headless sway
# (need_sway). Each vlock case has a terminal (tmux) of its own (vlock_terminal).
# XN: the X display; the fake logind's x11 session names it, started or not.
XN=$(free_display 37)
export DISPLAY=":$XN" XAUTHORITY="$W/xauth"
SHOT="$W/shot.png"
need_x() {
    [ -z "$XPID" ] || return 0
    echo "#   (Xvfb :$XN started)"
    x_start "$XN" "$XAUTHORITY" "$W/xvfb.log"
    check "(setup) Xvfb :$XN answers" xdpyinfo -display ":$XN" > /dev/null
}
need_sway() {
    [ -z "${SWAY_PID:-}" ] || return 0
    sway_start "$W" "$TUSER"
    check "(setup) headless sway up, as $TUSER, with a keyboard for wtype" test -n "$SWAY_PID" -a -n "$WL_DISPLAY"
}

# =============================================================================================
echo "# vlock in a terminal (tmux), run by $TUSER; no logind (as this VM)"
USER_SHELL="setpriv --reuid=$TUSER --regid=$TUSER --init-groups env -i HOME=$W/u TERM=screen PATH=/usr/bin:/bin PS1='\$ ' bash --norc --noprofile"
# vlock_terminal: a case's own terminal (the last one's ended), the user's shell in it, no logind.
vlock_terminal() {
    tm kill-server 2>/dev/null
    logind_none
    ns tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s t -x 120 -y 40 "$USER_SHELL"
    tm set-option -g history-limit 0 > /dev/null
    wait_for "" '$' 5
}
LOCKED_MSG="Please press [ENTER] to unlock."
# vlock_start COMMAND: runs the locker in the user's shell and waits for its locked screen; then
# Enter (as a person does to unlock) starts PAM. Sets VLOCK (the vlock-main pid).
vlock_start() {
    rm -f "$SOCK" "$W/u/rc"
    tm send-keys -t t "clear; VLOCK_CURRENT_MESSAGE='This TTY is now locked. $LOCKED_MSG' $1; echo \$? > $W/u/rc" Enter
    wait_for "" "$LOCKED_MSG" 5
    VLOCK=$(pgrep -P "$(tm display -p -t t '#{pane_pid}')" -x vlock-main)
    tm send-keys -t t Enter
}
# wait_lacks TEXT SECONDS: until the terminal no longer shows TEXT.
wait_lacks() {
    local deadline=$(($(now_ms) + $2 * 1000))
    while screen | grep -qF -- "$1"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.02
    done
}
unlocked() { wait_file "$W/u/rc" "${1:-3}" && [ "$(cat "$W/u/rc")" = 0 ]; }
still_locked() { [ ! -e "$W/u/rc" ] && [ -n "$VLOCK" ] && ! gone "$VLOCK"; }
type_password() { tm send-keys -t t -l "$TPASS"; tm send-keys -t t Enter; }

echo "# Debian's vlock: vlock-main is setuid root, so PAM runs with euid 0"
# vlock_helper: HPID, vlock-main's helper, and its status lines for a failed check (helper_status).
vlock_helper() { HPID=$([ -n "$VLOCK" ] && pgrep -P "$VLOCK" -x touchauth); helper_status "$HPID"; }
# touch_then_screen: the user's finger at the sensor, then OUT is the terminal's screen.
touch_then_screen() { python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null; OUT=$(screen); }
vlock_root_finger() {
    conf "$SUID"
    vlock_terminal
    fresh_state
    vlock_start vlock
    wait_for "" "$HINT" 10
    OUT=$(screen)
    check "vlock: Enter at the locked screen -> our prompt and the Enter/typing hint in the terminal" \
        eval 'has "$PROMPT" && has "$HINT"'
    check "...the sensor is armed" armed
    vlock_helper
    # The module's setuid(0) for a host with euid 0 (as under sudo): no setuid helper needed.
    check "...its helper (child of vlock-main) runs as root through and through: Uid 0 0 0 0" uid_line 0 0 0 0
    touch_then_screen
    check "vlock: the user's finger -> unlocked (vlock exits 0), no password asked" eval 'unlocked && lacks "Password:"'
}
case_ "vlock (setuid vlock-main): the finger" vlock_root_finger

vlock_root_enter() {
    conf "$SUID"
    vlock_terminal
    fresh_state
    vlock_start vlock
    wait_for "" "$HINT" 10
    local t0
    t0=$(now_ms)
    tm send-keys -t t Enter
    wait_for "" "Password:" 5
    ENTER_MS=$(($(now_ms) - t0))
    OUT=$(screen)
    check "vlock: Enter at our prompt -> pam_unix's 'Password:' at once (${ENTER_MS} ms)" has "Password:"
    check "...the helper is gone (the sensor released)" eval '[ -n "$VLOCK" ] && [ -z "$(pgrep -P "$VLOCK" -x touchauth)" ]'
    type_password
    OUT=$(screen)
    check "...the password -> unlocked" unlocked
}
case_ "vlock (setuid vlock-main): Enter, then the password" vlock_root_enter

vlock_root_ctrl_c() {
    conf "$SUID"
    vlock_terminal
    fresh_state
    vlock_start vlock
    wait_for "" "$HINT" 10
    tm send-keys -t t C-c
    # vlock turns ISIG off and ignores SIGINT: the module reads Ctrl-C as a byte, returns PAM_ABORT
    # (abort=die); vlock says so, sleeps 1 s and asks for root's password (vlock's root fallback).
    wait_for "" "root's Password:" 5
    OUT=$(screen)
    check "vlock: Ctrl-C at our prompt -> PAM_ABORT ('Critical error'), then vlock's own root fallback" \
        eval 'has "Critical error - immediate abort" && has "root'"'"'s Password:"'
    check "...still locked (Ctrl-C never unlocks)" still_locked
    tm send-keys -t t Enter     # an empty root password fails: vlock clears the screen, locked again
    wait_lacks "root's Password:" 5
    wait_for "" "$LOCKED_MSG" 5
    tm send-keys -t t Enter
    wait_for "" "$HINT" 10
    touch_then_screen
    check "...and the next Enter brings our prompt back: the finger unlocks" unlocked
}
case_ "vlock (setuid vlock-main): Ctrl-C, then the finger" vlock_root_ctrl_c

echo "# vlock run as the user (vlock-main without the setuid bit), with the setuid helper"
vlock_user_finger() {
    conf "$SUID"
    vlock_terminal
    fresh_state
    vlock_start "$W/bin/vlock-main"
    wait_for "" "$HINT" 10
    OUT=$(screen)
    check "vlock as the user: our prompt and hint" eval 'has "$PROMPT" && has "$HINT"'
    check "...the sensor is armed" armed
    vlock_helper
    OUT+=$'\n'"vlock-main: $([ -n "$VLOCK" ] && grep '^Uid:' "/proc/$VLOCK/status" 2>/dev/null)"
    check "...vlock-main runs as the user, its helper is the setuid one: Uid $TUID 0 0 0" uid_line "$TUID" 0 0 0
    touch_then_screen
    check "vlock as the user: the user's finger -> unlocked, no password asked" eval 'unlocked && lacks "Password:"'
}
case_ "vlock as the user: the finger" vlock_user_finger

vlock_user_else() {
    conf "$SUID"
    vlock_terminal
    fresh_state
    vlock_start "$W/bin/vlock-main"
    wait_for "" "$HINT" 10
    python3 "$E2E/vsensor.py" "$SOCK" "$ELSE" "$ELSE" "$ELSE" > /dev/null
    wait_for "" "Password:" 5
    OUT=$(screen)
    check "vlock as the user: someone else's finger three times -> 'Fingerprint not recognized', then 'Password:'" \
        eval 'test "$(count_of "Not recognized, try again")" = 2 && has "Fingerprint not recognized" && has "Password:"'
    check "...still locked" still_locked
    check "...three strikes recorded in root's state dir" test "$(strikes)" = 3
    type_password
    check "...the password -> unlocked" unlocked
}
case_ "vlock as the user: someone else's finger, then the password" vlock_user_else

echo "# vlock run as the user, without the setuid helper (the default install)"
vlock_plain() {
    conf "$PLAIN"
    vlock_terminal
    fresh_state
    rm -f "$W/u/plain.started"
    vlock_start "$W/bin/vlock-main"
    local t0
    t0=$(now_ms)
    wait_for "" "Password:" 5
    PLAIN_MS=$(($(now_ms) - t0))
    OUT=$(screen)
    check "no setuid helper: Enter at the locked screen -> 'Password:' at once (${PLAIN_MS} ms, the timeout is ${TIMEOUT} s)" \
        eval 'has "Password:"'
    check "...no fingerprint prompt" lacks "$PROMPT"
    check "...the sensor was never armed (the helper cannot read root's prints)" never_armed
    check "...(control) the plain helper was started, and the recorder saw it (vlock is not a locker asked first)" plain_started
    type_password
    check "...the password -> unlocked" unlocked
    conf "$SUID"
    tm kill-server 2>/dev/null
}
case_ "vlock as the user, no setuid helper" vlock_plain
tm kill-server 2>/dev/null

# =============================================================================================
echo "# X lockers on Xvfb :$XN, in $TUSER's fake local x11 logind session $SID"
# locker_start ENV... -- CMD...: the locker, run by the test user in session 37 with nothing
# inherited but the display; LOCKER is its pid (nsenter, sh and setpriv exec into it).
locker_start() {
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    rm -f "$SOCK"
    ns "$W/bin/in-session" setpriv --reuid="$TUSER" --regid="$TUSER" --init-groups \
        env -i DISPLAY="$DISPLAY" XAUTHORITY="$XAUTHORITY" HOME="$W/u" PATH=/usr/bin:/bin "${envs[@]}" \
        "$@" > "$W/locker.out" 2>&1 &
    LOCKER=$!
}
# locker_done SECONDS: the locker ended by itself within SECONDS and said 0: unlocked.
locker_done() {
    wait_gone "$LOCKER" "$1" || return 1
    wait "$LOCKER"; local rc=$?
    LOCKER=""
    [ "$rc" = 0 ]
}
locker_stop() {  # ends a locker still running (a failed case) and its children, by their pids
    [ -n "$LOCKER" ] || return 0
    local pids p
    pids=$(tree_of "$LOCKER")
    kill $pids 2>/dev/null
    for p in $pids; do wait_gone "$p" 3; done
    wait "$LOCKER" 2>/dev/null
    LOCKER=""
}
tree_of() {  # tree_of PID: PID and every process below it
    local todo=$1 p all=""
    while [ -n "$todo" ]; do
        local next=""
        for p in $todo; do all+=" $p"; next+=" $(pgrep -P "$p" | tr '\n' ' ')"; done
        todo=$(echo $next)
    done
    echo $all
}
# watch_below PID: records, every 10 ms until watch_stop, the processes below PID (name, pid,
# state), for the message of a failing check.
watch_below() {
    : > "$W/below.log"
    ( while kill -0 "$1" 2>/dev/null; do
          for c in $(pgrep -P "$1"); do echo "$(cat "/proc/$c/comm" 2>/dev/null)/$c" >> "$W/below.log"; done
          sleep 0.01
      done ) &
    WATCHER=$!
}
watch_stop() { kill "$WATCHER" 2>/dev/null; wait "$WATCHER" 2>/dev/null; }
locker_running() { [ -n "$LOCKER" ] && ! gone "$LOCKER"; }
x_type_password() { xdotool type --delay 15 "$TPASS"; xdotool key Return; }
descendant_named() {  # descendant_named PID NAME: the first process called NAME below PID
    local todo=$1 p
    while [ -n "$todo" ]; do
        local next=""
        for p in $todo; do
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && { echo "$p"; return 0; }
            next+=" $(pgrep -P "$p" | tr '\n' ' ')"
        done
        todo=$(echo $next)
    done
    return 1
}

# watch_helper PID: records, every 10 ms until watch_helper_stop, any helper (touchauth)
# anywhere below PID; no_helper_seen: none was.
watch_helper() {
    : > "$W/helper.log"
    ( while kill -0 "$1" 2>/dev/null; do descendant_named "$1" touchauth >> "$W/helper.log"; sleep 0.01; done ) &
    HWATCHER=$!
}
watch_helper_stop() { kill "$HWATCHER" 2>/dev/null; wait "$HWATCHER" 2>/dev/null; }
no_helper_seen() { [ ! -s "$W/helper.log" ]; }
# x_case [ACTIVE]: an X locker case's start: Xvfb up, the setuid helper's config, the test
# user's x11 session in front (ACTIVE 1, the default) or behind another one (0).
x_case() { need_x; conf "$SUID"; logind_x11 "${1:-1}"; }
echo "# i3lock: it reads the password first, calls PAM on Enter, drops PAM's messages"
# The module asks it first (docs/POLICY.md#lockers-that-read-the-password-first): one
# PAM_PROMPT_ECHO_OFF, which i3lock answers with what was typed before Enter (conv_callback
# in i3lock.c). Typed: the password, handed to pam_unix at once. Empty: the finger. i3lock
# shows "Verifying…" while PAM runs and "Wrong!" when it fails; its --debug lines say how
# pam_authenticate ended.
# i3lock_start: starts i3lock once the last locker's keyboard grab is gone, and waits until it
# holds the grab itself (it maps its window, then grabs): keys typed from then on are its.
i3lock_start() {  # (ARGS: more of i3lock's options)
    wait_keyboard free 5
    locker_start -- i3lock -n --debug "$@"
    wait_keyboard held 5
}
# i3_failures: how many times pam_authenticate failed so far (i3lock --debug says so each time).
i3_failures() { grep -c "Authentication failure" "$W/locker.out" 2> /dev/null; }
# wait_i3_failure N SECONDS: until the Nth failure is reported.
wait_i3_failure() {
    local _
    for _ in $(seq $(($2 * 50))); do [ "$(i3_failures)" -ge "$1" ] && return 0; sleep 0.02; done
    return 1
}
i3_said() { OUT="i3lock said: $(grep -v "current password" "$W/locker.out" 2> /dev/null)"; }
INDICATOR=200x60+412+352        # the middle of the ring i3lock draws, where its text is

i3lock_finger() {
    x_case
    OCR_MODES=("-threshold 35%" "")
    fresh_state
    i3lock_start
    watch_helper "$LOCKER"
    untaken_touch "$FINGER"; TOUCH_RC=$?
    watch_helper_stop
    i3_said; OUT+=$'\n'"touch: $TOUCH_OUT; helpers: $(sort -u "$W/helper.log" | tr '\n' ' ')"
    check "i3lock: a touch before any Enter -> nobody took it for 10 s, still locked, no helper started" \
        eval '[ "$TOUCH_RC" = 0 ] && locker_running && never_armed && no_helper_seen && [ "$(i3_failures)" = 0 ]'
    local t0
    t0=$(now_ms)
    xdotool key Return              # Enter on the empty field: the user asks for the finger
    wait_socket "$SOCK" 5
    ARM_MS=$(($(now_ms) - t0))
    i3_said
    check "i3lock: Enter on the empty field -> the sensor armed (${ARM_MS} ms), still locked, no failure" \
        eval 'armed && locker_running && [ "$(i3_failures)" = 0 ]'
    read_screen "$INDICATOR"
    cp "$SHOT" "$W/i3lock-verifying.png"
    OUT="screen: $SCREEN"
    check "...i3lock shows its 'Verifying' state while the finger is awaited" seen "verifying"
    t0=$(now_ms)
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null
    locker_done 5; RC=$?
    TOUCH_MS=$(($(now_ms) - t0))
    i3_said
    check "...the user's finger -> unlocked (i3lock exits 0, ${TOUCH_MS} ms after the touch), no failure" \
        eval '[ "$RC" = 0 ] && [ "$(i3_failures)" = 0 ]'
    check "...no strike" test "$(strikes)" = 0
    locker_stop
    keep_shot i3lock-verifying  # (i3lock's 'Verifying')
    check "the screenshot of i3lock-verifying was taken" test -s "$KEPT"
}
case_ "i3lock: a touch before Enter, Enter, the finger" i3lock_finger

i3lock_else() {
    x_case
    fresh_state
    i3lock_start
    xdotool key Return
    wait_socket "$SOCK" 5
    python3 "$E2E/vsensor.py" "$SOCK" "$ELSE" "$ELSE" "$ELSE" > /dev/null
    wait_i3_failure 1 10
    i3_said
    check "i3lock: Enter, then someone else's finger three times -> pam_authenticate fails ('Wrong!'), still locked" \
        eval '[ "$(i3_failures)" = 1 ] && locker_running'
    check "...three strikes on disk" test "$(strikes)" = 3
    x_type_password
    locker_done 5; RC=$?
    i3_said
    check "...then the typed password unlocks" test "$RC" = 0
    locker_stop
}
case_ "i3lock: someone else's finger, then the password" i3lock_else

# i3lock_typed WHAT: i3lock up, the password typed; it must unlock at once and never arm the
# sensor nor start a helper (checks naming the case; the time is printed in the first).
i3lock_typed() {
    fresh_state
    i3lock_start
    watch_helper "$LOCKER"
    local t0
    t0=$(now_ms)
    x_type_password
    locker_done 5; I3_RC=$?
    TYPED_MS=$(($(now_ms) - t0))
    watch_helper_stop
    i3_said; OUT="unlocked after ${TYPED_MS} ms; $OUT"
    check "$1 (${TYPED_MS} ms)" eval '[ "$I3_RC" = 0 ]'
    check "...the sensor was never armed, no helper started" eval 'never_armed && no_helper_seen'
    locker_stop
}
# typed_both_ways SERVICE FUNC NAME: FUNC (i3lock_typed, sl_typed) three times with our line in
# SERVICE's stack and three times without it, in turns; WITH and WITHOUT: the times (TYPED_MS).
typed_both_ways() {
    local round
    WITH="" WITHOUT=""
    for round in 1 2 3; do
        $2 "$3, setuid helper: the typed password unlocks, round $round"
        WITH+=" $TYPED_MS"
        cp "$W/pam.d/$1" "$W/$1.ours"
        grep -v pam_touchauth "$W/$1.ours" > "$W/pam.d/$1"
        $2 "(control) $3 without touchauth in its stack: the typed password unlocks, round $round"
        WITHOUT+=" $TYPED_MS"
        cp "$W/$1.ours" "$W/pam.d/$1"
    done
}
# The time from the first key (xdotool types at 15 ms a key, then Enter) to i3lock's exit.
i3lock_typed_both() {
    x_case
    typed_both_ways i3lock i3lock_typed i3lock
    I3_WITH=$WITH I3_WITHOUT=$WITHOUT
    echo "#   i3lock, typed password -> unlocked (ms, typing included): with touchauth$I3_WITH; without$I3_WITHOUT"
}
# (its check names: "i3lock, setuid helper: the typed password unlocks, round N" and
# "(control) i3lock without touchauth in its stack: the typed password unlocks, round N")
case_ "i3lock, setuid helper: the typed password unlocks, with and without touchauth in its stack" i3lock_typed_both

# i3_empty_fails WHAT CONDITION: i3lock up, Enter on the empty field fails at once (one failure,
# still locked, CONDITION holds; the helpers started below i3lock watched). i3lock stays up.
i3_empty_fails() {
    local t0
    i3lock_start
    watch_helper "$LOCKER"
    t0=$(now_ms)
    xdotool key Return
    wait_i3_failure 1 5
    FAIL_MS=$(($(now_ms) - t0))
    watch_helper_stop
    i3_said; OUT+=$'\n'"helpers: $(sort -u "$W/helper.log" | tr '\n' ' ')"
    check "$1 (${FAIL_MS} ms)" eval '[ "$(i3_failures)" = 1 ] && locker_running && '"$2"
}
# A locked-out user: the setuid helper refuses before any sensor is opened; i3lock shows its
# failure at once, and the password still unlocks.
i3lock_locked_out() {
    x_case
    set_state 5 "$(date +%s)"
    i3_empty_fails "i3lock, a locked-out user: Enter on the empty field fails at once, no sensor" never_armed
    x_type_password
    locker_done 5; RC=$?
    i3_said
    check "...the typed password unlocks" test "$RC" = 0
    locker_stop
}
case_ "i3lock: a locked-out user" i3lock_locked_out

# Without the setuid helper the helper cannot read root's prints: the empty Enter fails at once,
# with no helper started (never a sensor nobody can open, never a wait).
i3lock_plain() {
    x_case
    conf "$PLAIN"
    fresh_state
    rm -f "$W/u/plain.started"
    i3_empty_fails "i3lock, no setuid helper: Enter on the empty field fails at once, no helper started" \
        'never_armed && no_helper_seen && ! plain_started'
    I3_PLAIN_MS=$FAIL_MS
    locker_stop
    i3lock_typed "i3lock, no setuid helper: the typed password unlocks at once"
    conf "$SUID"
}
case_ "i3lock: no setuid helper" i3lock_plain

i3lock_behind() {
    x_case 0
    i3lock_typed "i3lock in a session that is not in front (logind ACTIVE=0, another session on seat0): the password at once"
    i3_empty_fails "...and Enter on the empty field there fails at once, the sensor never armed" never_armed
    locker_stop
    logind_x11 1
}
case_ "i3lock: a session that is not in front" i3lock_behind

echo "# swaylock under headless sway (run by $TUSER; swaylock in the namespace and session 37)"
# The same rule as i3lock's (swaylock's handle_conversation answers every question with the
# typed buffer and drops the messages). sway 1.7 refuses to run as root: it runs as the user,
# as in a real session (clients/locker_wayland.sh, NOTES.md).
WL_PREFIX=(nsenter -t "$NSPID" -m -r -w "$W/bin/in-session")
sl_failures() { swaylock_count "pam_authenticate failed"; }
sl_said() { OUT="swaylock said: $(cat "$SWAYLOCK_LOG" 2> /dev/null)"; }
sl_start() { swaylock_start "$TUSER"; rm -f "$SOCK"; }
# sl_case: a swaylock case's start: sway up, the setuid helper's config, the user's session in front.
sl_case() { need_sway; conf "$SUID"; logind_x11 1; }

swaylock_finger() {
    sl_case
    fresh_state
    sl_start
    untaken_touch "$FINGER"; TOUCH_RC=$?
    sl_said; OUT+=$'\n'"touch: $TOUCH_OUT"
    check "swaylock: a touch before any Enter -> nobody took it for 10 s, still locked, PAM never called" \
        eval '[ "$TOUCH_RC" = 0 ] && ! swaylock_said "received pw check request" && never_armed && [ -n "$SWAYLOCK_PID" ] && kill -0 "$SWAYLOCK_PID"'
    local t0
    t0=$(now_ms)
    wl_key Return
    wait_socket "$SOCK" 5
    SL_ARM_MS=$(($(now_ms) - t0))
    sl_said
    check "swaylock: Enter on the empty field -> the sensor armed (${SL_ARM_MS} ms), its ring says 'verifying'" \
        eval 'armed && [ "$(swaylock_ring)" = verifying ] && [ "$(sl_failures)" = 0 ]'
    wl_shot "$W/swaylock-verifying.png"
    t0=$(now_ms)
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null
    wait_swaylock_exit 5; RC=$?
    SL_TOUCH_MS=$(($(now_ms) - t0))
    sl_said
    check "...the user's finger -> unlocked (swaylock exits 0, ${SL_TOUCH_MS} ms after the touch)" test "$RC" = 0
    swaylock_stop
    keep_shot swaylock-verifying  # (swaylock's 'verifying' ring)
    check "the screenshot of swaylock-verifying was taken" test -s "$KEPT"
}
case_ "swaylock: a touch before Enter, Enter, the finger" swaylock_finger

swaylock_else() {
    sl_case
    fresh_state
    sl_start
    wl_key Return
    wait_socket "$SOCK" 5
    python3 "$E2E/vsensor.py" "$SOCK" "$ELSE" "$ELSE" "$ELSE" > /dev/null
    wait_ring wrong 10
    sl_said
    check "swaylock: Enter, then someone else's finger three times -> PAM fails, its ring says 'wrong', still locked" \
        eval '[ "$(sl_failures)" = 1 ] && [ "$(swaylock_ring)" = wrong ] && kill -0 "$SWAYLOCK_PID"'
    check "...three strikes on disk" test "$(strikes)" = 3
    wl_enter "$TPASS"
    wait_swaylock_exit 5; RC=$?
    sl_said
    check "...then the typed password unlocks" test "$RC" = 0
    swaylock_stop
}
case_ "swaylock: someone else's finger, then the password" swaylock_else

# sl_typed WHAT: swaylock up, the password typed with Enter in one wtype call; unlocked at
# once, the sensor never armed (TYPED_MS: from the typing to swaylock's exit).
sl_typed() {
    fresh_state
    sl_start
    local t0
    t0=$(now_ms)
    wl_enter "$TPASS"
    wait_swaylock_exit 5; RC=$?
    TYPED_MS=$(($(now_ms) - t0))
    sl_said; OUT="unlocked after ${TYPED_MS} ms; $OUT"
    check "$1 (${TYPED_MS} ms)" eval '[ "$RC" = 0 ] && never_armed'
    swaylock_stop
}
swaylock_typed_both() {
    sl_case
    typed_both_ways swaylock sl_typed swaylock
    SL_WITH=$WITH SL_WITHOUT=$WITHOUT
    echo "#   swaylock, typed password -> unlocked (ms): with touchauth$SL_WITH; without$SL_WITHOUT"
}
# (its check names: "swaylock, setuid helper: the typed password unlocks, round N" and
# "(control) swaylock without touchauth in its stack: the typed password unlocks, round N")
case_ "swaylock, setuid helper: the typed password unlocks, with and without touchauth in its stack" swaylock_typed_both

# sl_fails_then_password WHAT CONDITION: Enter on the empty field fails at once (the ring turns
# 'wrong', one failure, CONDITION holds), then the typed password unlocks: two checks.
sl_fails_then_password() {
    local t0 ms
    sl_start
    t0=$(now_ms)
    wl_key Return
    wait_ring wrong 5
    ms=$(($(now_ms) - t0))
    sl_said
    check "$1 (${ms} ms)" eval '[ "$(sl_failures)" = 1 ] && '"$2"
    wl_enter "$TPASS"
    wait_swaylock_exit 5; RC=$?
    sl_said
    check "...the typed password unlocks" test "$RC" = 0
    swaylock_stop
}
swaylock_locked_out() {
    sl_case
    set_state 5 "$(date +%s)"
    sl_fails_then_password "swaylock, a locked-out user: Enter on the empty field fails at once, no sensor" never_armed
}
case_ "swaylock: a locked-out user" swaylock_locked_out
swaylock_plain() {
    sl_case
    conf "$PLAIN"
    fresh_state
    rm -f "$W/u/plain.started"
    sl_fails_then_password "swaylock, no setuid helper: Enter on the empty field fails at once, the sensor never armed, no helper started" \
        'never_armed && ! plain_started'
    conf "$SUID"
}
case_ "swaylock: no setuid helper" swaylock_plain
sway_stop

echo "# xsecurelock (its auth dialog shows PAM's messages; PAM service 'xsecurelock' here)"
XS_AREA=1024x240+0+264          # the band where its dialog writes
# xs_case [ENV...]: an xsecurelock case's start (x_case; its OCR: white text on black); XS_ENV:
# XSECURELOCK_PAM_SERVICE=xsecurelock and the ENV given.
xs_case() { x_case; OCR_MODES=("-negate"); XS_ENV=(XSECURELOCK_PAM_SERVICE=xsecurelock "$@"); }
# xs_start: waits until it has grabbed the screen (its saver runs), then a key (Ctrl)
# wakes its auth dialog, which runs PAM (authproto_pam).
xs_start() {
    wait_keyboard free 5
    locker_start "${XS_ENV[@]}" -- xsecurelock
    local _
    for _ in $(seq 200); do
        [ -n "$(pgrep -P "$LOCKER" -x saver_multiplex)" ] && break
        sleep 0.025
    done
    wait_keyboard held 5
    xdotool key Control_L
}
# xsecurelock 1.5.1 sets PAM_RHOST "localhost" (a convention for local logins) unless
# XSECURELOCK_NO_PAM_RHOST=1; the module counts any PAM_RHOST as a network login (docs/POLICY.md#a-network-login-is-never-offered-it).
xs_shipped() {
    xs_case
    fresh_state
    xs_start
    wait_screen "Password:" 6 "$XS_AREA"
    OUT="screen: $SCREEN"
    check "xsecurelock as shipped (PAM_RHOST=localhost): its password prompt at once" seen "Password:"
    check "...no fingerprint prompt" unseen "finger"
    check "...the sensor was never armed (a network login for the module)" never_armed
    x_type_password
    OUT=$(cat "$W/locker.out")
    check "...the password -> unlocked" locker_done 5
    locker_stop
}
case_ "xsecurelock as shipped (PAM_RHOST=localhost)" xs_shipped

xs_finger() {
    xs_case XSECURELOCK_NO_PAM_RHOST=1
    fresh_state
    rm -f "$W/locker-prompt.png"
    xs_start
    # The prompt's lines are sent once the sensor is open; xsecurelock shows each for a second (or
    # until a key), the last one stays. The screen is read for 3 s.
    wait_socket "$SOCK" 5
    check "xsecurelock with XSECURELOCK_NO_PAM_RHOST=1: the sensor is armed" armed
    local all="" last deadline=$(($(now_ms) + 3000))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        read_screen "$XS_AREA"
        all+="$SCREEN"$'\n'
        seen "$PROMPT" && [ ! -s "$W/locker-prompt.png" ] && cp "$SHOT" "$W/locker-prompt.png"
    done
    last=$SCREEN
    SCREEN=$all
    OUT="screens: $all"
    check "...our prompt on the lock screen" seen "$PROMPT"
    check "...and the hint '[Enter Password] after $TIMEOUT s'" seen "Password] after ${TIMEOUT}s"
    SCREEN=$last
    OUT="last screen: $last"
    # xsecurelock shows each message for a second and keeps the last (pam/clients.c): the helper
    # sends one line with both ways in, so what stays while the sensor waits says what to do with
    # the finger and when the password comes (before issue 22: the prompt alone, the hint gone).
    check "...what stays on the screen says both ways in: the prompt and the hint" \
        eval 'seen "$PROMPT" && seen "Password] after"'
    HPID=$(descendant_named "$LOCKER" touchauth)
    helper_status "$HPID"
    check "...its helper is the setuid one: Uid $TUID 0 0 0" uid_line "$TUID" 0 0 0
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null
    OUT=$(cat "$W/locker.out")
    check "xsecurelock: the user's finger -> unlocked (exits 0)" locker_done 3
    locker_stop
    keep_shot locker-prompt  # (xsecurelock with our prompt: TOUCHAUTH_SCREENSHOTS=docs renews docs/locker-prompt.png)
    check "the screenshot was taken, under 100 KB" \
        test -s "$KEPT" -a "$(stat -c %s "$KEPT" 2>/dev/null || echo 0)" -lt 100000
}
case_ "xsecurelock with XSECURELOCK_NO_PAM_RHOST=1: the finger" xs_finger

xs_else() {
    xs_case XSECURELOCK_NO_PAM_RHOST=1
    fresh_state
    xs_start
    wait_socket "$SOCK" 5
    python3 "$E2E/vsensor.py" "$SOCK" "$ELSE" "$ELSE" "$ELSE" > /dev/null
    wait_screen "Password:" 8 "$XS_AREA"
    OUT="screen: $SCREEN"
    check "xsecurelock: someone else's finger three times -> its password prompt" seen "Password:"
    check "...still locked" locker_running
    check "...three strikes recorded" test "$(strikes)" = 3
    x_type_password
    OUT=$(cat "$W/locker.out")
    check "...the password -> unlocked" locker_done 5
    locker_stop
}
case_ "xsecurelock: someone else's finger, then the password" xs_else

xs_timeout() {
    xs_case XSECURELOCK_NO_PAM_RHOST=1
    fresh_state
    xs_start
    wait_socket "$SOCK" 5
    local t0
    t0=$(now_ms)
    wait_screen "Password:" $((TIMEOUT + 6)) "$XS_AREA"
    XS_TO_MS=$(($(now_ms) - t0))
    OUT="screen after ${XS_TO_MS} ms: $SCREEN"
    check "xsecurelock: no finger -> its password prompt after the timeout (${XS_TO_MS} ms)" \
        eval 'seen "Password:"'
    x_type_password
    OUT=$(cat "$W/locker.out")
    check "...the password -> unlocked" locker_done 5
    locker_stop
}
case_ "xsecurelock: no finger, the timeout, then the password" xs_timeout

xs_plain() {
    xs_case XSECURELOCK_NO_PAM_RHOST=1
    conf "$PLAIN"
    fresh_state
    xs_start
    local t0
    t0=$(now_ms)
    wait_screen "Password:" 6 "$XS_AREA"
    XS_PLAIN_MS=$(($(now_ms) - t0))
    OUT="screen after ${XS_PLAIN_MS} ms: $SCREEN"
    check "xsecurelock, no setuid helper: its password prompt at once (${XS_PLAIN_MS} ms incl. the screenshot and OCR)" \
        eval 'seen "Password:"'
    check "...no fingerprint prompt" unseen "finger"
    check "...the sensor was never armed" never_armed
    x_type_password
    OUT=$(cat "$W/locker.out")
    check "...the password -> unlocked" locker_done 5
    locker_stop
    conf "$SUID"
}
case_ "xsecurelock: no setuid helper" xs_plain

XPID_WAS=$XPID
cleanup
NSPID="" XPID=""
check "(cleanup) no cgroup directory of ours left" sh -c "! ls -d $OURS 2>/dev/null | grep -q ."
no_leftovers() {
    local n p
    # (a locker's own children, swaylock's PAM process, end a moment after it: 5 s at most each)
    for n in i3lock swaylock sway xsecurelock vlock-main auth_x11 authproto_pam; do
        for p in $(pgrep -u "$TUSER" -x "$n"); do
            wait_gone "$p" 5 || { OUT="left: $n"$'\n'"$(ps -o pid,ppid,stat,etimes,args -u "$TUSER")"; return 1; }
        done
    done
    for p in $(in_ns_pids); do  # (a zombie is gone: this VM's init does not reap)
        gone "$p" || { OUT="left in the namespace: $p $(cat "/proc/$p/comm" 2>/dev/null)"; return 1; }
    done
    ! tmux -S "$TMUX_SOCK" ls > /dev/null 2>&1 && { [ -z "$XPID_WAS" ] || ! kill -0 "$XPID_WAS" 2>/dev/null; }
}
check "(cleanup) no locker, Xvfb or tmux of ours left" no_leftovers
echo "# measured: vlock Enter -> Password: ${ENTER_MS:-} ms; no setuid helper: vlock ${PLAIN_MS:-} ms, i3lock's empty Enter ${I3_PLAIN_MS:-} ms"
echo "# measured: swaylock empty Enter -> armed ${SL_ARM_MS:-} ms, touch -> unlocked ${SL_TOUCH_MS:-} ms; typed password -> unlocked with touchauth${SL_WITH:-}, without${SL_WITHOUT:-} ms"
echo "# measured: i3lock empty Enter -> armed ${ARM_MS:-} ms, touch -> unlocked ${TOUCH_MS:-} ms; typed password -> unlocked with touchauth${I3_WITH:-}, without${I3_WITHOUT:-} ms"
echo "# run time $(($(date +%s) - STARTED)) s"
summary
