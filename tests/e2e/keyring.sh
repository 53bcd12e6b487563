#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The login keyring kept unlocked (issue 36; docs/POLICY.md#the-login-keyring): at a service
# that starts a session, when its auth phase unlocks GNOME's keyring with the password, the
# finger is not offered (the password at once, no strike, the sensor never armed, one line in
# the log), unless finger_at_keyring_login = yes; a GDM unlock and sudo keep the finger.
# Real components: libpam and pamtester, the real pam_unix with the test user's password, the
# module and its helper, libfprint's virtual sensor, and the real pam_gnome_keyring.so and
# gnome-keyring-daemon on a D-Bus session bus of the test's own. "Armed" is judged by the
# virtual sensor's socket (it appears from fp_device_open on). The keyring's state is asked of
# the daemon over D-Bus: the login collection's Locked property, after `gnome-keyring-daemon
# --start --components=secrets` (what a GNOME session runs) has put the daemon pam_gnome_keyring
# started on the bus.
# The host's PAM stacks are neither read nor changed:
# - libpam-gnome-keyring is not installed (its postinst runs pam-auth-update, which would put
#   pam_gnome_keyring into the host's common-*): `apt-get download` + `dpkg -x` into a cache
#   of the suite's own, and the stacks name the module by that path;
# - the suite's stacks are bound over /etc/pam.d in the sandbox's private mount namespace (the
#   module reads /etc/pam.d, as libpam does); a tmpfs over /home gives the test user a home
#   (the daemon writes the keyring there) in that namespace only;
# - the daemons the user's session starts (dbus-daemon, gnome-keyring-daemon) run in a cgroup
#   of the suite's own and are killed by their ids from its cgroup.procs.
# In the sandbox, this shell becomes a child subreaper first: the daemons a PAM session starts
# (they daemonize) are orphaned to it, not to PID 1 (which, in some containers, reaps nothing),
# and its wait reaps them once session_end has killed them.
if [ "${TOUCHAUTH_SANDBOX:-}" = 1 ] && [ "${TOUCHAUTH_KEYRING_REAPER:-}" != 1 ]; then
    TOUCHAUTH_KEYRING_REAPER=1 exec python3 -c 'import ctypes, os, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
os.execvp(sys.argv[1], sys.argv[1:])' bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
ensure_packages pamtester libpam-modules python3 gnome-keyring dbus-daemon dbus-bin

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
THOME=$(getent passwd "$TUSER" | cut -d: -f6)
CONF="$T/touchauth.conf"
STATE="$T/state"
mkdir -m 0700 "$STATE"
# keyring_config [key=value...]: the suite's config (the trust rules off, debug), and the keys given.
keyring_config() {
    write_config "$CONF" "helper=$HELPER" "state_dir=$STATE" "password_after_boot=no" \
        "password_max_age=0" "password_after_enroll_change=no" "debug=yes" "$@"
}
keyring_config
enroll "$TUSER" right-index-finger tu-right-index
check "(setup) enroll stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"
FINGER="SCAN tu-right-index"
PROMPT="Place your finger on the fingerprint reader"
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }
SESSION_CG="$CG/touchauth-keyring-$$"
BUS_PID=""
cleanup() {
    session_end
    rmdir "$SESSION_CG" 2>/dev/null
    syslog_stop
    rm -rf "$T"
}
trap cleanup EXIT
syslog_start

# The real pam_gnome_keyring.so, unpacked from Debian's package (cached: CI has no network
# twice). The machine's own copy, if libpam-gnome-keyring is installed, is not used.
KR_CACHE=/var/cache/touchauth/libpam-gnome-keyring
KR_MODULE=$(find "$KR_CACHE/x" -name pam_gnome_keyring.so 2>/dev/null | head -1)
if [ -z "$KR_MODULE" ]; then
    mkdir -p "$KR_CACHE" && chmod 0755 /var/cache/touchauth "$KR_CACHE"
    (cd "$KR_CACHE" && rm -f ./*.deb && apt-get download libpam-gnome-keyring > /dev/null 2>&1 &&
        dpkg -x libpam-gnome-keyring_*.deb x)
    KR_MODULE=$(find "$KR_CACHE/x" -name pam_gnome_keyring.so 2>/dev/null | head -1)
fi
check "(setup) the real pam_gnome_keyring.so, unpacked from Debian's package" test -f "$KR_MODULE"

# The stacks: Debian's login and gdm-password (auth: pam_nologin, common-auth as pam-auth-update
# writes it with our profiles, then pam_gnome_keyring), and polkit-1's with the same keyring line.
PAMD="$T/etc-pam.d"
mkdir -p "$PAMD"
cat > "$PAMD/common-auth" <<EOF
auth	[success=2 default=ignore]	$MODULE config=$CONF
auth	[success=1 default=ignore]	pam_unix.so nullok try_first_pass nodelay
auth	requisite			pam_deny.so
auth	required			pam_permit.so
auth	optional			$MODULE config=$CONF authsucc
EOF
for svc in login gdm-password polkit-1; do
    cat > "$PAMD/$svc" <<EOF
auth	requisite	pam_nologin.so
@include common-auth
auth	optional	$KR_MODULE
account	required	pam_permit.so
session	required	pam_env.so readenv=1 envfile=$T/session.env user_readenv=0
session	optional	$KR_MODULE auto_start
EOF
done
# GDM's finger conversation as examples/pam.d/gdm-fingerprint has it (the finger required, then
# the keyring line).
cat > "$PAMD/gdm-fingerprint" <<EOF
auth	requisite	pam_nologin.so
auth	required	$MODULE config=$CONF
auth	optional	$KR_MODULE
account	required	pam_permit.so
session	required	pam_env.so readenv=1 envfile=$T/session.env user_readenv=0
session	optional	$KR_MODULE auto_start
EOF
# The password alone (pam_unix and the keyring), to make a login keyring before a case needs one.
cat > "$PAMD/keyring-setup" <<EOF
auth	required	pam_unix.so nodelay
auth	optional	$KR_MODULE
account	required	pam_permit.so
session	required	pam_env.so readenv=1 envfile=$T/session.env user_readenv=0
session	optional	$KR_MODULE auto_start
EOF
printf 'auth required pam_deny.so\naccount required pam_deny.so\nsession required pam_deny.so\n' > "$PAMD/other"
mount --bind "$PAMD" /etc/pam.d
check "(setup) the suite's stacks are /etc/pam.d here (the host's are untouched)" \
    eval 'grep -q pam_gnome_keyring /etc/pam.d/login && [ -e /etc/pam.d/keyring-setup ]'
mount -t tmpfs -o mode=0755 tmpfs /home
RUN="/home/.run-$TUID"  # (on the tmpfs: the user cannot pass through $T)

# fresh_home: the user's home, empty (no keyring yet).
fresh_home() { rm -rf "$THOME"; mkdir -m 0700 "$THOME"; chown "$TUSER:" "$THOME"; }
# session_start: the user's session bus (dbus-daemon as the user, in the suite's cgroup) and a
# fresh XDG_RUNTIME_DIR; the PAM session's environment names them (pam_env). The home stays.
session_start() {
    session_end
    rm -rf "$RUN"
    mkdir -m 0700 "$RUN"
    chown "$TUSER:" "$RUN"
    mkdir -p "$SESSION_CG"
    printf 'XDG_RUNTIME_DIR=%s\nDBUS_SESSION_BUS_ADDRESS=unix:path=%s/bus\n' "$RUN" "$RUN" > "$T/session.env"
    sh -c 'echo $$ > "$1/cgroup.procs" && exec setpriv --reuid="$2" --regid="$2" --init-groups \
        env -i HOME="$3" XDG_RUNTIME_DIR="$4" dbus-daemon --session --fork --nopidfile \
        --address="unix:path=$4/bus"' sh "$SESSION_CG" "$TUID" "$THOME" "$RUN" > /dev/null 2>&1
    for _ in $(seq 500); do [ -S "$RUN/bus" ] && break; sleep 0.01; done
}
# session_end: every process of the suite's cgroup (the bus, the keyring daemon), by its id.
session_end() {
    local pid
    [ -e "$SESSION_CG/cgroup.procs" ] || return 0
    for _ in $(seq 500); do
        [ -n "$(cat "$SESSION_CG/cgroup.procs")" ] || break
        while read -r pid; do kill -9 "$pid" 2>/dev/null; done < "$SESSION_CG/cgroup.procs"
        sleep 0.01
    done
}
# login SERVICE INPUT [vsensor commands...]: pamtester authenticate + open_session on the real
# /etc/pam.d (the suite's), PAM_TTY ":0" (a display manager's), no terminal, in the suite's
# cgroup (the keyring daemon pam_gnome_keyring starts stays there). Sets RC, OUT, ARMED.
login() {
    local svc=$1 input=$2; shift 2
    sensor_start "$@"
    ARMED=no
    printf '%s\n' "$input" | sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$SESSION_CG" \
        setsid -w timeout 60 env ${LOGIN_ENV:-} pamtester -v -I tty=:0 "$svc" "$TUSER" authenticate open_session \
        > "$T/out" 2>&1
    RC=$?
    # Armed: the socket is there, or the sender's commands were taken (which needs a listener;
    # the socket may be gone with the helper). Never armed: the sender still waits for one.
    [ -e "$SOCK" ] && ARMED=yes
    if [ -n "$SENDER" ] && ! kill -0 "$SENDER" 2>/dev/null; then
        wait "$SENDER" && ARMED=yes
        SENDER=""
    fi
    sensor_stop
    OUT=$(cat "$T/out")
}
# keyring_locked: the login collection's Locked property, as the session's own programs see it
# ("true" or "false"; nothing when there is no login keyring), after the session's
# `gnome-keyring-daemon --start` put the daemon's secrets service on the bus.
keyring_locked() {
    as_user gnome-keyring-daemon --start --components=secrets > /dev/null 2>&1
    as_user dbus-send --session --print-reply --dest=org.freedesktop.secrets \
        /org/freedesktop/secrets/collection/login org.freedesktop.DBus.Properties.Get \
        string:org.freedesktop.Secret.Collection string:Locked 2>/dev/null |
        sed -n 's/.*boolean \(true\|false\).*/\1/p'
}
as_user() {  # in the suite's cgroup: a daemon it starts is ended with the session
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$SESSION_CG" setpriv --reuid="$TUID" --regid="$TUID" --init-groups env -i HOME="$THOME" XDG_RUNTIME_DIR="$RUN" \
        DBUS_SESSION_BUS_ADDRESS="unix:path=$RUN/bus" PATH=/usr/bin:/bin "$@"
}
LOGGED="the finger is not offered at"

# keyring_made: the user's home with a login keyring made with the password, its session over
# (the daemon gone, the keyring on disk), a new session bus: as after an earlier login.
keyring_made() {
    fresh_home
    session_start
    login keyring-setup "$TPASS"
    check "(setup) $CASE: a login keyring made with the password" \
        eval '[ "$RC" = 0 ] && [ "$(keyring_locked)" = false ] && [ -s "$THOME/.local/share/keyrings/login.keyring" ]'
    session_start  # a new boot of the user's session: the daemon gone, the keyring on disk
}

# --- a. login, the default: the password, and the keyring unlocked ---------------------------
a_login() {
    keyring_config
    fresh_state
    fresh_home
    session_start
    : > "$T/syslog"   # (the log lines of this case alone)
    login login "$TPASS" "$FINGER"
    check "a. login with a keyring line (finger_at_keyring_login default): the password succeeds, the session opens" \
        eval 'has "successfully authenticated" && has "successfully opened a session" && [ "$RC" = 0 ]'
    check "a. ...the finger was not offered: no prompt, the sensor never armed" eval 'lacks "$PROMPT" && [ "$ARMED" = no ]'
    check "a. ...one line in the log says why (module, file, line; the key that offers it)" \
        logged "user $TUSER: $LOGGED login: its stack unlocks a keyring with the password ($KR_MODULE, login line 3); finger_at_keyring_login = yes offers it"
    check "a. ...the helper never ran: no audit line (written past the cheap skips)" eval '! grep -q "service login: " "$T/syslog"'
    OUT="Locked: $(keyring_locked)"
    check "a. ...and the login keyring is unlocked (its Locked property over D-Bus: false)" has "Locked: false"
}
case_ "a. login, the default: the password, and the keyring unlocked" a_login

# --- b. finger_at_keyring_login = yes: the finger, and the keyring stays locked --------------
b_finger_at_login() {
    fresh_state
    keyring_made
    keyring_config "finger_at_keyring_login=yes"
    login login "" "$FINGER"
    check "b. finger_at_keyring_login = yes: login offers the finger, and it logs in" \
        eval 'has "$PROMPT" && [ "$ARMED" = yes ] && has "successfully authenticated" && [ "$RC" = 0 ]'
    OUT="Locked: $(keyring_locked)"
    check "b. ...and the login keyring stays locked (Locked: true): no password reached it" has "Locked: true"
}
case_ "b. finger_at_keyring_login = yes: the finger, and the keyring stays locked" b_finger_at_login

# --- c. GDM: its login screen as login; its unlock (the same two stacks) keeps the finger ----
# (gdm-password never offers the finger: clients_gnome.sh; the finger is gdm-fingerprint's)
c_gdm() {
    keyring_config
    fresh_state
    keyring_made
    login gdm-password "$TPASS" "$FINGER"
    check "c. gdm-password at the login screen: not offered, the password" \
        eval 'lacks "$PROMPT" && [ "$ARMED" = no ] && has "successfully authenticated"'
    login gdm-fingerprint "" "$FINGER"
    check "c. gdm-fingerprint at the login screen: not offered, and that conversation fails (nothing else in it authenticates)" \
        eval 'lacks "$PROMPT" && [ "$ARMED" = no ] && [ "$RC" != 0 ] && lacks "successfully authenticated"'
    LOGIN_ENV="GDM_SESSION_FOR_REAUTH=1" login gdm-fingerprint "" "$FINGER"
    check "c. gdm-fingerprint in GDM's unlock (its worker has GDM_SESSION_FOR_REAUTH=1): the finger" \
        eval 'has "$PROMPT" && [ "$ARMED" = yes ] && has "successfully authenticated"'
    LOGIN_ENV="GDM_SESSION_FOR_REAUTH=1" login login "$TPASS" "$FINGER"
    check "c. ...that variable means nothing to login: not offered" eval 'lacks "$PROMPT" && [ "$ARMED" = no ]'
}
case_ "c. GDM: its login screen as login; its unlock keeps the finger" c_gdm

# --- d. a service that starts no session, the same keyring line: the finger ------------------
# (polkit-1 here: sudo without a terminal is never offered it; test_keyring covers the names)
d_polkit() {
    keyring_config
    fresh_state
    keyring_made
    login polkit-1 "" "$FINGER"
    check "d. polkit-1 with a keyring line (no session started there): the finger is offered and succeeds" \
        eval 'has "$PROMPT" && [ "$ARMED" = yes ] && has "successfully authenticated"'
    session_end
}
case_ "d. a service that starts no session, the same keyring line: the finger" d_polkit

session_end
umount /home /etc/pam.d
summary
