#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# KDE Plasma 6's lock screen for real (issue 36): Debian 13's kscreenlocker_greet (6.3) with
# Plasma's own lock screen (plasma-desktop's org.kde.plasma.desktop shell), in its testing mode
# (--testing: a plain window, no ksld) under Xvfb, run as the test user inside a fake local x11
# logind session, on libfprint's virtual sensor, keys and pointer sent with xdotool, the screen
# read back with tesseract, and the greeter's own debug log (its PAM conversations, line by line).
#
# The greeter runs two PAM conversations at once: "kde" (the password field) and
# "kde-fingerprint" (no prompt of its own: while it runs, the screen says "(or scan your
# fingerprint on the reader)"). Debian ships both in /usr/lib/pam.d; /etc/pam.d/kde-fingerprint
# overrides it. Cases, with examples/pam.d/kde-fingerprint (our module instead of pam_fprintd):
# the finger unlocks; a wrong finger shows our line; three wrong fingers, then the password;
# a locked-out user gets the password field alone, and the password unlocks. Then the README's
# way (pam-auth-update --enable touchauth: our line in common-auth, which "kde" includes): what
# the password field does while the finger is armed there. Last, KDE's polkit agent
# (polkit-kde-agent-1) with the real polkitd on a private system bus and pkexec (polkit-1
# includes common-auth): the agent in the session (armed: our line and the dialog's field at once,
# the finger, the password typed at once) and in user@UID.service, where Plasma 6 runs it (the
# same: the module owns the agent's line, docs/decisions/0034-the-agent-line-is-the-prompts.md).
#
# Runs where Plasma 6 is packaged (Debian 13: debian13.sh runs it in its trixie root on the
# installed package). It installs what it lacks (about 380 packages; debian13.sh keeps the
# downloads), then runs in a private mount namespace of its own: /etc/pam.d, /etc/security,
# /var/lib/pam, /etc/polkit-1/rules.d and /run/systemd are copies (or ours) bind-mounted over the
# real ones, /run/dbus a tmpfs: the real files are never changed. TOUCHAUTH_SCREENSHOTS=DIR keeps
# the screens read (kde-*.png: docs/ has four of them).
if [ "${TOUCHAUTH_KDE_NS:-}" != 1 ]; then
    source "$(dirname "$0")/clients/locker_x11.sh"
    gui_packages libkscreenlocker6 plasma-desktop xvfb xauth x11-utils xdotool imagemagick \
        tesseract-ocr tesseract-ocr-eng dbus dbus-x11 util-linux python3 polkitd pkexec polkit-kde-agent-1 ||
        { echo "cannot install kscreenlocker and plasma-desktop"; echo "0 passed, 1 failed"; exit 1; }
    exec unshare -m --propagation private env TOUCHAUTH_KDE_NS=1 bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
source "$E2E/clients/locker_x11.sh"
STARTED=$(date +%s)
OUT=""
GREET=$(ls /usr/lib/*/libexec/kscreenlocker_greet 2>/dev/null | head -n 1)
POLKITD=/usr/lib/polkit-1/polkitd
KDE_AGENT=$(ls /usr/lib/*/libexec/polkit-kde-authentication-agent-1 2>/dev/null | head -n 1)
for tool in Xvfb xdotool import tesseract dbus-run-session setpriv pkexec dbus-daemon "$POLKITD" "$KDE_AGENT"; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
[ -x "$GREET" ] || { echo "no kscreenlocker_greet"; echo "0 passed, 1 failed"; exit 1; }
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }
echo "# kscreenlocker $(dpkg-query -W -f='${Version}' libkscreenlocker6), plasma-desktop $(dpkg-query -W -f='${Version}' plasma-desktop)"

two_users
TIMEOUT=30                      # long enough for the screen reads between arming and the finger
SHORT_TIMEOUT=15                # the case that waits for it (the screen is read meanwhile)
mkdir -m 0700 "$T/state"
W=$(mktemp -d /tmp/touchauth-kde.XXXXXX)
chmod 0755 "$W"
mkdir -m 0755 "$W/bin" "$W/etc-security" "$W/rs"
mkdir -m 0700 "$W/home" "$W/xdg"
chown "$TUSER:" "$W/home" "$W/xdg"
SUID="$W/bin/touchauth"         # what install.sh --setuid makes: root, 4755 (the greeter runs as the user)
cp "$HELPER" "$SUID"; chmod 4755 "$SUID"
CONF="$T/touchauth.conf"
cp -a /etc/security/. "$W/etc-security/"
write_config "$CONF" "helper=$SUID" "state_dir=$T/state" "timeout=$TIMEOUT" "password_after_boot=no" \
    "password_max_age=0" "password_after_enroll_change=no"
enroll_two_users
mount --bind "$W/etc-security" /etc/security
cat "$CONF" > /etc/security/touchauth.conf
# (fresh_state, strikes: tests/e2e/kit/state.sh, on $STATE = $T/state)

# /etc/pam.d: a copy; kde-fingerprint as examples/pam.d gives it (the module's path as installed
# here), kde as Debian ships it (it includes common-auth: the profile is off at first).
cp -a /etc/pam.d "$W/pam.d"
sed "s#pam_touchauth.so#$MODULE#" "$ROOT/examples/pam.d/kde-fingerprint" > "$W/pam.d/kde-fingerprint"
[ -e "$W/pam.d/kde" ] || cp /usr/lib/pam.d/kde "$W/pam.d/kde"
mount --bind "$W/pam.d" /etc/pam.d
mkdir "$W/var-lib-pam"
cp -a /var/lib/pam/. "$W/var-lib-pam/"
mount --bind "$W/var-lib-pam" /var/lib/pam   # pam-auth-update's records: a copy too
DEBIAN_FRONTEND=noninteractive pam-auth-update --disable touchauth > /dev/null 2>&1   # (on the copy)
check "(setup) the namespace sees our kde-fingerprint and config; the finger profile off" \
    sh -c "grep -q '$MODULE' /etc/pam.d/kde-fingerprint && grep -q '$SUID' /etc/security/touchauth.conf &&
        ! grep -v authsucc /etc/pam.d/common-auth | grep -q pam_touchauth"

# The fake logind (tests/e2e/kit/logind.sh, in $W: the greeter, as the user, reads it): seat0
# with session $SID, the test user's local x11 session on our display, active, in front.
XN=$(free_display "${TOUCHAUTH_KDE_DISPLAY:-73}")
SID=73                          # (not 37: clients_lockers.sh may run at the same time)
SCOPE="$CG/user.slice/user-$TUID.slice/session-$SID.scope"
LOGIND="$W/rs" logind_front "$SID" "$TUID" TYPE=x11 DISPLAY=":$XN"
mount --bind "$W/rs" /run/systemd
# Where Plasma 6 runs its polkit agent: the user manager (plasma-polkit-agent.service).
USVC="$CG/user.slice/user-$TUID.slice/user@$TUID.service/app.slice/plasma-polkit-agent.service"
OURS=""
for d in "$SCOPE" "$USVC" "${USVC%/*}" "${USVC%/*/*}" "$CG/user.slice/user-$TUID.slice" "$CG/user.slice"; do [ -d "$d" ] || OURS+=" $d"; done
[ -d "$SCOPE" ] && { echo "$SCOPE exists already: not ours to use"; echo "0 passed, 1 failed"; exit 1; }
cat > "$W/bin/in-session" <<EOF
#!/bin/sh
mkdir -p "$SCOPE" && echo \$\$ > "$SCOPE/cgroup.procs" || exit 125
exec "\$@"
EOF
chmod 0755 "$W/bin/in-session"
sed "s#$SCOPE#$USVC#g" "$W/bin/in-session" > "$W/bin/in-user-service"
chmod 0755 "$W/bin/in-user-service"

GPID="" XPID="" AGPID="" PKPID="" BUSPIDS=""
cleanup() {
    [ -n "$GPID" ] && kill -- -"$GPID" 2>/dev/null
    [ -n "$AGPID" ] && kill -- -"$AGPID" 2>/dev/null
    [ -n "$PKPID" ] && kill -- -"$PKPID" 2>/dev/null
    [ -n "$BUSPIDS" ] && kill $BUSPIDS 2>/dev/null
    [ -n "$XPID" ] && kill "$XPID" 2>/dev/null
    wait 2>/dev/null
    local d p _
    for d in $OURS; do  # (what the greeter's bus leaves is moved out; 2 s at most)
        for _ in $(seq 100); do
            [ -d "$d" ] || break
            for p in $(cat "$d/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done
            rmdir "$d" 2>/dev/null || sleep 0.02
        done
    done
    return 0
}
trap 'cleanup; rm -rf "$W" "$T"' EXIT

export DISPLAY=":$XN" XAUTHORITY="$W/xauth"
SHOT="$W/shot.png"
x_start "$XN" "$XAUTHORITY" "$W/xvfb.log"
check "(setup) Xvfb :$XN answers" test $? -eq 0

# greet_start: the greeter as the test user, in session $SID, with a session bus of its own; its
# debug lines (each PAM message of each conversation) in $W/greet.log, its stdout ("Locked at",
# "Unlocked") in $W/greet.out. Waits for the lock screen, then moves the pointer and presses Shift
# as a person waking it does (Plasma's lock screen starts PAM only when its UI becomes visible),
# then for the log line given (default: kde's password prompt).
greet_start() {
    rm -f "$SOCK"
    : > "$W/greet.log"; : > "$W/greet.out"; rm -f "$W/greet.rc" "$W/greet.pid"
    (
        setsid "$W/bin/in-session" setpriv --reuid="$TUSER" --regid="$TUSER" --init-groups \
            env -i HOME="$W/home" PATH=/usr/bin:/bin LANG=C.UTF-8 DISPLAY="$DISPLAY" XAUTHORITY="$XAUTHORITY" \
            XDG_RUNTIME_DIR="$W/xdg" QT_LOGGING_RULES='kscreenlocker_greet.debug=true' \
            dbus-run-session -- "$GREET" --testing > "$W/greet.out" 2> "$W/greet.log" &
        echo $! > "$W/greet.pid"
        wait $!
        echo $? > "$W/greet.rc"
    ) &
    wait_file "$W/greet.pid" 5
    GPID=$(cat "$W/greet.pid")   # setsid's: the leader of the greeter's own process group
    wait_log "Locked at" 60 "$W/greet.out" || return 1
    wait_screen "$(date +%Y)" 30 "1024x200+0+0" || return 1   # the clock and date: the QML is up
    xdotool mousemove 500 400 sleep 0.2 mousemove 510 410 key shift 2> /dev/null
    wait_log "${1:-[PAM worker kde] Message: Echo-off prompt}" 30
}
# wait_log TEXT SECONDS [FILE]: until the file ($W/greet.log) has TEXT.
wait_log() {
    local deadline=$(($(now_ms) + $2 * 1000))
    until grep -aqF -- "$1" "${3:-$W/greet.log}"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}
unlocked() { wait_file "$W/greet.rc" "${1:-10}" && grep -qx Unlocked "$W/greet.out" && [ "$(cat "$W/greet.rc")" = 0 ]; }
# greet_stop: SIGTERM, then SIGKILL: a greeter ended while a conversation sits in a module
# waits for that thread (~PamAuthenticator joins it) and would outlive the test.
greet_stop() {
    [ -n "$GPID" ] && kill -- -"$GPID" 2>/dev/null
    wait_file "$W/greet.rc" 5 || { kill -9 -- -"$GPID" 2>/dev/null; wait_file "$W/greet.rc" 5; }
    GPID=""
}
type_password() { xdotool type --delay 30 "$1" 2> /dev/null; xdotool key Return 2> /dev/null; }
# Plasma's lock screen fades its UI out after 10 s without input: each screen read here first
# moves the pointer (as a person looking at it does), then reads. One OCR rendering (as is: dark
# text on the light field, light text on the wallpaper both come out).
OCR_MODES=("")
WAKE=0
wake() { WAKE=$((1 - WAKE)); xdotool mousemove $((500 + 20 * WAKE)) $((400 + 20 * WAKE)) 2> /dev/null; sleep 0.5; }
read_screen() { wake; shot "$SHOT" && SCREEN=$(ocr "$SHOT" "${1:-}"); }
# password_field: the empty password field is on the screen: its white box found in the column
# x=380 below the user's name (it moves down as messages pile up above it), its placeholder
# "Password" read there (the whole screen's reading misses the pale text). 1024x768. With "typed":
# the box alone (the dots of what was typed read as anything).
password_field() {
    local top="" field _
    for _ in 1 2 3 4 5; do   # (the UI may be fading out: woken, read again)
        shot "$SHOT.field.png" || return 1
        top=$(/usr/bin/convert "$SHOT.field.png" -crop 1x300+380+400 +repage -colorspace Gray -depth 8 txt:- 2> /dev/null |
            sed -n 's/^0,\([0-9]*\): (\([0-9]*\)).*/\1 \2/p' | awk '$2 > 240 { print $1 + 400; exit }')
        [ -n "$top" ] && break
        wake
    done
    [ -n "$top" ] || { echo "       | field: no white box"; return 1; }
    field=$(OCR_MODES=(""); OCR_PSMS=(7); ocr "$SHOT.field.png" "240x22+370+$((top + 2))")
    [ "${1:-}" = typed ] || grep -q Password <<< "$field" || echo "       | field at y=$top: $field"
    [ "${1:-}" = typed ] || grep -q Password <<< "$field"
}
touch_finger() { python3 "$E2E/vsensor.py" "$SOCK" "$@" > /dev/null 2>&1; }
FP_LABEL="(or scan your fingerprint on the reader)"
fp_log() { OUT=$(grep -aF "[PAM worker kde-fingerprint]" "$W/greet.log"); }
# keep NAME: the last screenshot as kde-NAME.png in $TOUCHAUTH_SCREENSHOTS, if set (docs/kde-*.png).
keep() { [ -z "${TOUCHAUTH_SCREENSHOTS:-}" ] || keep_png "$SHOT" "$TOUCHAUTH_SCREENSHOTS/kde-$1.png"; return 0; }

# =============================================================================================
echo "# kde-fingerprint with our module (examples/pam.d), kde as Debian ships it"
fresh_state
greet_start
check "(setup) the greeter is up and its password conversation asks" test $? -eq 0
OUT=$(tr -d '\000' < "$W/greet.log")
check "the greeter starts kde-fingerprint at once, fprintd or not (no D-Bus check)" \
    has "[PAM worker kde-fingerprint] Authenticate: Starting authentication"
check "...our module arms the sensor" wait_socket "$SOCK" 10
wait_screen "$FP_LABEL" 20
keep finger-armed
OUT=$SCREEN
check "...the screen: the password field and KDE's own '$FP_LABEL'" \
    eval 'seen "$FP_LABEL" && password_field'
fp_log
check "...our 'Place your finger' goes to kde-fingerprint as info (Plasma does not show it)" \
    has "Info message: Place your finger on the fingerprint reader"
touch_finger "$FINGER"
check "the finger: the greeter unlocks (stdout 'Unlocked', exit status 0)" unlocked 15
OUT=$(tr -d '\000' < "$W/greet.log")
check "...from the fingerprint conversation" has "Success from non-interactive authenticator kde-fingerprint"
greet_stop

echo "# a wrong finger, then the right one"
fresh_state
greet_start
wait_socket "$SOCK" 10
wait_screen "$FP_LABEL" 10 "600x30+212+470"
xdotool type x 2> /dev/null   # (a character in the field keeps Plasma's UI from fading out)
touch_finger "$ELSE"
wait_log "Error message: Not recognized" 10
SCREEN=""
for i in 1 2 3 4 5 6; do   # (shown for a moment, about 2 s: screenshots at once, read after)
    shot "$SHOT.$i.png"
done
for i in 1 2 3 4 5 6; do
    SCREEN+=$(ocr "$SHOT.$i.png" "600x30+212+470")
    seen "Not recognized" && { cp "$SHOT.$i.png" "$SHOT"; break; }
done
keep wrong-finger
OUT=$SCREEN
check "a wrong finger: our 'Not recognized, try again' in place of KDE's fingerprint line" seen "Not recognized"
fp_log
check "...it came as an error message of kde-fingerprint" has "Error message: Not recognized, try again"
wait_screen "$FP_LABEL" 10
check "...then KDE's line comes back (the sensor still armed)" test "$(seen "$FP_LABEL" && [ -S "$SOCK" ] && echo y)" = y
touch_finger "$FINGER"
check "...the right finger then unlocks" unlocked 15
check "...and settled the strike: strikes 0" test "$(strikes)" = 0
greet_stop

echo "# three wrong fingers, then the password"
fresh_state
greet_start
wait_socket "$SOCK" 10
touch_finger "$ELSE" "$ELSE" "$ELSE"
wait_log "[PAM worker kde-fingerprint] Authenticate: Authentication done" 15
fp_log
check "three wrong fingers: kde-fingerprint fails (PAM_MAXTRIES)" \
    has "Authentication done, result code: 11"
wait_screen "$TUSER" 10
keep three-wrong
OUT=$SCREEN
check "...KDE's fingerprint line is gone, the password field stays" test "$(unseen "$FP_LABEL" && password_field && echo y)" = y
check "...three strikes" test "$(strikes)" = 3
type_password "$TPASS"
check "...the password unlocks" unlocked 15
greet_stop

echo "# locked out: five strikes"
fresh_state
greet_start
wait_socket "$SOCK" 10
touch_finger "$ELSE" "$ELSE" "$ELSE"
wait_log "[PAM worker kde-fingerprint] Authenticate: Authentication done" 15
greet_stop
greet_start
wait_socket "$SOCK" 10
touch_finger "$ELSE" "$ELSE"
wait_log "[PAM worker kde-fingerprint] Authenticate: Authentication done" 15
fp_log
check "two more wrong fingers: our lockout reason goes to kde-fingerprint" has "Too many failed attempts"
check "...five strikes" test "$(strikes)" = 5
greet_stop
greet_start
check "(setup) the greeter is up again" test $? -eq 0
wait_log "[PAM worker kde-fingerprint] Authenticate: Authentication done" 15
fp_log
check "locked out: our module refuses at once, with our reason, as info" \
    test "$(has "Info message: Too many failed attempts" && has "Authentication done" && echo y)" = y
check "...the sensor never armed" test ! -e "$SOCK"
wait_screen "$TUSER" 10
keep lockout
OUT=$SCREEN
check "...the screen: the password field, no fingerprint line" test "$(unseen "$FP_LABEL" && password_field && echo y)" = y
LOCKOUT_SEEN=no; seen "Too many failed" && LOCKOUT_SEEN=yes
echo "    (our lockout reason on the screen: $LOCKOUT_SEEN)"
type_password "$TPASS"
check "...the password unlocks" unlocked 15
greet_stop

# =============================================================================================
echo "# the README's way: pam-auth-update --enable touchauth (our line in common-auth, which kde includes)"
fresh_state
OUT=$(DEBIAN_FRONTEND=noninteractive pam-auth-update --enable touchauth 2>&1; grep -v '^#' /etc/pam.d/common-auth)
check "(setup) pam-auth-update --enable touchauth: our finger line in common-auth" \
    test "$(grep -v authsucc /etc/pam.d/common-auth | grep -c pam_touchauth.so)" = 1
rm "$W/pam.d/kde-fingerprint"   # Debian's again (pam_fprintd, not installed: unavailable at once)
# Our timeout as shipped (30 s): a password that waited for it would miss the 15 s below.
write_config /etc/security/touchauth.conf "helper=$SUID" "state_dir=$T/state" \
    "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no"
greet_start
check "kde, our line in it through common-auth: the module steps aside, pam_unix's prompt at once" test $? -eq 0
OUT=$(tr -d '\000' < "$W/greet.log")
check "...no line of ours in kde, the sensor never armed" \
    test "$(lacks "[PAM worker kde] Message: Info message: Place your finger" && [ ! -e "$SOCK" ] && echo y)" = y
type_password "$TPASS"
check "...the password typed at once unlocks (no wait for our timeout)" unlocked 15
OUT=$(tr -d '\000' < "$W/greet.log")
check "...and our module never ran a prompt there" lacks "Fingerprint timed out"
greet_stop
echo "    (this way Plasma offers no finger: Debian's kde-fingerprint is pam_fprintd; examples/pam.d/kde-fingerprint gives it)"
# A short timeout for the polkit cases: the password typed at once waits for it there.
write_config /etc/security/touchauth.conf "helper=$SUID" "state_dir=$T/state" "timeout=$SHORT_TIMEOUT" \
    "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no"

# =============================================================================================
echo "# KDE's polkit agent (polkit-kde-agent-1) with the real polkitd, pkexec as $TUSER (polkit-1 includes common-auth)"
# A system bus and polkitd of our own (as clients_polkit.sh): a tmpfs over /run/dbus, one rule
# (the test user authenticates as themself: an admin rule naming them).
run_dbus_dir
mount -t tmpfs -o mode=0755 tmpfs /run/dbus
mkdir -m 0755 "$W/rules"
echo 'polkit.addAdminRule(function(action, subject) { return ["unix-user:'"$TUSER"'"]; });' > "$W/rules/00-touchauth-e2e.rules"
mount --bind "$W/rules" /etc/polkit-1/rules.d
BUSPIDS=$(dbus-daemon --system --fork --nopidfile --print-pid)
G_MESSAGES_DEBUG=all "$POLKITD" > "$W/polkitd.log" 2>&1 &
BUSPIDS+=" $!"
wait_log "Acquired the name org.freedesktop.PolicyKit1" 15 "$W/polkitd.log"
check "(setup) polkitd on our system bus" test $? -eq 0
# agent_start WHERE: the agent as the test user, in the session (in-session) or in the user
# manager (in-user-service), with a session bus of its own; waits for polkitd to register it.
agent_start() {
    : > "$W/agent.log"
    local before
    before=$(grep -c "Registered Authentication Agent" "$W/polkitd.log")
    setsid "$W/bin/$1" setpriv --reuid="$TUSER" --regid="$TUSER" --init-groups \
        env -i HOME="$W/home" PATH=/usr/bin:/bin LANG=C.UTF-8 DISPLAY="$DISPLAY" XAUTHORITY="$XAUTHORITY" \
        XDG_RUNTIME_DIR="$W/xdg" dbus-run-session -- "$KDE_AGENT" > "$W/agent.log" 2>&1 &
    AGPID=$!
    local _
    for _ in $(seq 300); do
        [ "$(grep -c "Registered Authentication Agent" "$W/polkitd.log")" -gt "$before" ] && return 0
        sleep 0.05
    done
    return 1
}
agent_stop() {
    [ -n "$AGPID" ] && kill -9 -- -"$AGPID" 2>/dev/null
    [ -n "$PKPID" ] && kill -9 -- -"$PKPID" 2>/dev/null
    AGPID="" PKPID=""
}
# pkexec_start: `pkexec /bin/true` from a shell of the test user in the session (pkexec's subject
# is its parent process); its status in $W/home/pk.rc.
pkexec_start() {
    rm -f "$SOCK" "$W/home/pk.rc"
    setsid "$W/bin/in-session" setpriv --reuid="$TUSER" --regid="$TUSER" --init-groups \
        env -i PATH=/usr/bin:/bin LANG=C.UTF-8 sh -c 'pkexec /bin/true > "$1/pk.out" 2>&1; echo $? > "$1/pk.rc"' sh "$W/home" &
    PKPID=$!
}
pk_granted() { wait_file "$W/home/pk.rc" "${1:-10}" && [ "$(cat "$W/home/pk.rc")" = 0 ]; }
pk_log() { OUT=$(cat "$W/agent.log" "$W/home/pk.out" 2> /dev/null); }
pk_read() { wake; shot "$SHOT" && SCREEN=$(ocr "$SHOT" "640x190+0+0"); }
wait_pk_screen() {
    local deadline=$(($(now_ms) + $2 * 1000))
    until pk_read && seen "$1"; do [ "$(now_ms)" -lt "$deadline" ] || return 1; done
}

echo "# the agent in the session (as a desktop that starts it there)"
fresh_state
agent_start in-session
check "(setup) the agent registered for session $SID" test $? -eq 0
pkexec_start
check "pkexec: our module arms the sensor (polkit-agent-helper-1, the agent in the session)" wait_socket "$SOCK" 15
wait_pk_screen "Place your finger" 15
keep polkit-armed
OUT=$SCREEN
FIELD=$(OCR_PSMS=(7); ocr "$SHOT" "400x22+106+118")   # (the field's pale "Password...": read alone)
OUT+=$'\n'"field: $FIELD"
check "...the dialog: our line (the last info only), the password field" \
    test "$(seen "Place your finger on the fingerprint reader" && seen "Authentication is needed" && grep -q Password <<< "$FIELD" && echo y)" = y
touch_finger "$FINGER"
check "...the finger: pkexec granted (exit status 0)" pk_granted 15
agent_stop

echo "# the agent in the session: the password typed at once"
fresh_state
agent_start in-session
pkexec_start
wait_socket "$SOCK" 15
wait_pk_screen "Place your finger" 15
xdotool mousemove 300 128 click 1 sleep 0.3 type --delay 30 "$TPASS" 2> /dev/null
xdotool key Return 2> /dev/null
wait_log "Dialog accepted" 10 "$W/agent.log"
pk_read
pk_granted 10
PK_RC=$?
pk_log
check "...typed and Enter while armed: granted at once (the sensor stopped, no wait for our timeout)" \
    test "$([ "$PK_RC" = 0 ] && lacks "Fingerprint timed out" && echo y)" = y
agent_stop

echo "# the agent in user@$TUID.service, where Plasma 6 runs it (plasma-polkit-agent.service)"
fresh_state
agent_start in-user-service
check "(setup) the agent registered (for the user's display session)" test $? -eq 0
echo "    (the agent's cgroup: $(grep -h '^0::' /proc/$(pgrep -n -u "$TUSER" -f polkit-kde-authentication-agent-1)/cgroup))"
pkexec_start
check "pkexec: our module arms the sensor (the agent outside the session, its user at the seat)" wait_socket "$SOCK" 15
wait_log 'Request:  "Password: "' 15 "$W/agent.log"
pk_log
check "...the dialog's password request at once, beside our line" has 'Request:  "Password: "'
wait_pk_screen "Place your finger" 15
keep polkit-user-service
OUT=$SCREEN
check "...the dialog shows our line" seen "Place your finger on the fingerprint reader"
touch_finger "$FINGER"
check "...the finger: pkexec granted (exit status 0)" pk_granted 15
agent_stop

echo "# $(($(date +%s) - STARTED)) s"
summary
