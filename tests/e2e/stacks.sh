#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Only a password that succeeded lifts the lockout, whatever the stack (issue 20): real libpam
# (pamtester), the real pam_unix with the test user's password, the module and its helper.
# - Fedora's authselect layout: `auth substack system-auth` (and password-auth), the recorder
#   after it in the service. Inside a substack `requisite pam_deny.so` ends only the substack,
#   so the recorder runs after a wrong password too: it must record nothing.
# - The recorder's word anywhere on its line (pam_faillock's way).
# - libpam-fprintd's profile (the .deb's own file) next to ours, through the real
#   pam-auth-update: ours conflicts with it; and the stack pam-auth-update writes when both are
#   on (before that field), run with a stand-in pam_fprintd.so that matches: its match reaches
#   the recorder and must lift nothing.
# The pam-auth-update cases run in a private mount namespace over copies of /etc/pam.d,
# /usr/share/pam-configs, /var/lib/pam, /etc/security and the PAM module directory.
# The common setup (the user's print, the namespace and the authselect stacks more than one
# case includes) is shared; each case (case_ of lib.sh) writes the state it starts from (locked,
# set_state), so it passes alone and `scripts/test.sh stacks:REGEX` runs only the cases it picks.
source "$(dirname "$0")/lib.sh"
ensure_packages pamtester libpam-wrapper libpam-modules libpam-runtime libpam0g-dev python3 gcc socat

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
mkdir -m 0700 "$T/state"
STATE="$T/state"
CONF="$T/touchauth.conf"
# The trust rules off: these cases are about the lockout and what lifts it.
write_config "$CONF" "state_dir=$STATE" "helper=$HELPER" "password_after_boot=no" "password_max_age=0" \
    "password_after_enroll_change=no" "debug=yes"
enroll "$TUSER" right-index-finger tu-right-index || { cat "$T/enroll.out"; echo "0 passed, 1 failed"; exit 1; }
NS_PID="" OUT=""
trap '[ -n "$NS_PID" ] && kill "$NS_PID" 2>/dev/null; syslog_stop; rm -rf "$T"' EXIT
syslog_start
ARGS="config=$CONF debug"

NOW=$(date +%s)
LOCKED_AT=$((NOW - 60))
OLD_PW=$((NOW - 86400))
# locked: five strikes a minute ago, the last password a day ago (the clocks must not restart).
locked() { set_state 5 "$LOCKED_AT" "$OLD_PW" - -; }   # (set_state, field: tests/e2e/kit/state.sh)
still_locked() {  # the state file as `locked` wrote it: nothing recorded, no clock restarted
    [ "$(field strikes)" = 5 ] && [ "$(field locked_at)" = "$LOCKED_AT" ] && [ "$(field password_at)" = "$OLD_PW" ]
}
lifted() { [ "$(field strikes)" = 0 ] && [ "$(field locked_at)" = - ] && [ "$(field password_at)" -ge "$NOW" ] 2>/dev/null; }
state_out() { OUT="$OUT
state file: $(tr '\n' ' ' < "$STATE/$TUID")"; }

SECDIR=$(dirname "$(find /lib /usr/lib -path '*/security/pam_unix.so' 2>/dev/null | head -1)")
mkdir -p "$T/ns/pam.d" "$T/ns/pam-configs" "$T/ns/varlib" "$T/ns/security-etc" "$T/ns/security-lib"
cp -a /etc/pam.d/. "$T/ns/pam.d/"
cp -a /usr/share/pam-configs/. "$T/ns/pam-configs/"
cp -a /var/lib/pam/. "$T/ns/varlib/" 2>/dev/null
cp -a /etc/security/. "$T/ns/security-etc/"
cp -a "$SECDIR/." "$T/ns/security-lib/"
rm -f "$T/ns/pam-configs/touchauth" "$T/ns/pam-configs/touchauth-unlock" "$T/ns/pam-configs/fprintd"
cp "$ROOT/examples/pam-configs/touchauth" "$ROOT/examples/pam-configs/touchauth-unlock" "$T/ns/pam-configs/"
# The module by its plain name, and a stand-in pam_fprintd.so that matches every finger.
cp "$MODULE" "$T/ns/security-lib/pam_touchauth.so"
printf '%s\n' '#include <security/pam_modules.h>' \
    'PAM_EXTERN int pam_sm_authenticate(pam_handle_t *h, int f, int c, const char **v) { (void)h; (void)f; (void)c; (void)v; return PAM_SUCCESS; }' \
    'PAM_EXTERN int pam_sm_setcred(pam_handle_t *h, int f, int c, const char **v) { (void)h; (void)f; (void)c; (void)v; return PAM_SUCCESS; }' \
    > "$T/ns/fprintd-standin.c"
gcc -shared -fPIC -Wall -o "$T/ns/security-lib/pam_fprintd.so" "$T/ns/fprintd-standin.c"
cp -p "$CONF" "$T/ns/security-etc/touchauth.conf"
# The namespace: a sleeper holds it; ns CMD... runs in it.
unshare -m sh -c 'mount --bind "$1/pam.d" /etc/pam.d && mount --bind "$1/pam-configs" /usr/share/pam-configs &&
    mount --bind "$1/varlib" /var/lib/pam && mount --bind "$1/security-etc" /etc/security &&
    mount --bind "$1/security-lib" "$2" && { [ "$3" = /dev/log ] || mount --bind "$3" /dev/log; } &&
    exec sleep 100000' sh "$T/ns" "$SECDIR" "$SYSLOG_SOCK" &
NS_PID=$!
for _ in $(seq 500); do
    [ "$(readlink /proc/$NS_PID/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] &&
        nsenter -t "$NS_PID" -m test -e "$SECDIR/pam_fprintd.so" 2>/dev/null && break
    sleep 0.01
done
ns() { nsenter -t "$NS_PID" -m "$@"; }
check "(setup) the namespace sees the copies" ns test -e "$SECDIR/pam_fprintd.so" -a -e /etc/security/touchauth.conf
# run SERVICE INPUT: pamtester in the namespace (its /etc/pam.d: pam_wrapper follows no include
# or substack), with no terminal and PAM_TTY ":0", as pam() runs it. Sets RC, OUT.
run() {
    printf '%s\n' "$2" | ns setsid -w timeout 60 pamtester -v -I tty=:0 "$1" "$TUSER" authenticate > "$T/out" 2>&1
    RC=$?
    OUT=$(cat "$T/out")
}
# svc NAME LINES...: a service file in the namespace's /etc/pam.d.
svc() { local name=$1; shift; { printf '%s\n' "$@"; echo "account required pam_permit.so"; } > "$T/ns/pam.d/$name"; }


# Fedora's authselect layout: auth substack system-auth, the recorder after it
# authselect's `local` profile (Fedora 36 and later; the sssd profile adds pam_sss after
# pam_unix), with our finger line before pam_unix, where its README puts a module like ours.
for stack in system-auth password-auth; do
    svc "$stack" "auth        required                                     pam_env.so" \
        "auth        required                                     pam_faildelay.so delay=2000000" \
        "auth        [success=done default=ignore]                $MODULE $ARGS" \
        "auth        [default=1 ignore=ignore success=ok]         pam_usertype.so isregular" \
        "auth        [default=1 ignore=ignore success=ok]         pam_localuser.so" \
        "auth        sufficient                                   pam_unix.so nullok" \
        "auth        required                                     pam_deny.so"
done
printf '%s\n' "session     optional                   pam_umask.so silent" > "$T/ns/pam.d/postlogin"
# Fedora's login and sshd begin so; the recorder right after the substack.
svc ta-login "auth       substack     system-auth" "auth       include      postlogin" \
    "auth       optional     $MODULE authsucc $ARGS"
svc ta-sshd "auth       substack     password-auth" "auth       include      postlogin" \
    "auth       optional     $MODULE authsucc $ARGS"
substack() {  # (CASE: "SERVICE (substack)")
    local name=${CASE% (substack)} t0 took
    locked
    : > "$T/syslog"
    t0=$(now_ms)
    run "$name" "not the password"
    took=$(($(now_ms) - t0))
    state_out
    check "$CASE: a wrong password fails" eval 'test "$RC" -ne 0 && lacks "successfully authenticated"'
    # pam_faildelay asked for 2 s (libpam: 1-3 s); with the recorder holding PAM_FAIL_DELAY
    # the module sleeps it, as libpam would have. A lower bound: load cannot make it fail.
    check "...after pam_faildelay's delay, as without the recorder (at least 1 s: took $took ms)" test "$took" -ge 1000
    check "...the fingerprint was refused as locked first (the finger line ran)" has "Too many failed attempts"
    check "...and lifts nothing: strikes 5, locked_at and password_at as they were" still_locked
    check "...the module logs that the authentication failed and nothing was recorded" \
        logged "user $TUSER: the authentication failed; no password recorded"
    : > "$T/syslog"
    run "$name" "$TPASS"
    state_out
    check "$CASE: the right password succeeds" has "successfully authenticated"
    check "...and lifts the lockout: strikes 0, no locked_at, password_at now" lifted
    check "...logged: password recorded" logged "user $TUSER: password recorded, fingerprint unlocked"
}
for name in ta-login ta-sshd; do case_ "$name (substack)" substack; done

corrupt_state() {
    printf 'garbage\n\x01\xff' > "$STATE/$TUID"
    run ta-login "$TPASS"
    state_out
    check "a corrupt state file, ta-login, the right password: success" has "successfully authenticated"
    check "...and the state file is rewritten: valid, strikes 0, no locked_at, root 0600" \
        eval 'head -1 "$STATE/$TUID" | grep -qx "touchauth-state 1" && lifted && test "$(stat -c %a:%U "$STATE/$TUID")" = 600:root'
}
case_ "a state file that cannot be trusted, repaired by a password that succeeded (substack)" corrupt_state

unix_first() {
    # pam_unix before our line (doctor warns about that order): its failure leaves the wrong
    # password on the handle, our finger then matches and the stack succeeds. The recorder must see
    # that the finger, not the password, succeeded.
    svc ta-unix-first "auth [success=done default=ignore] pam_unix.so nodelay" \
        "auth [success=ok default=die] $MODULE $ARGS" "auth optional $MODULE authsucc $ARGS"
    set_state 2 - "$OLD_PW" - -
    local sender
    rm -f "$SOCK"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null 2>&1 &
    sender=$!
    run ta-unix-first "not the password"
    wait "$sender" 2>/dev/null
    state_out
    check "a wrong password, then the right finger: success (the finger's)" \
        eval 'has "successfully authenticated" && has "Place your finger"'
    check "...the match clears the strikes, and the wrong password is not recorded: password_at as it was" \
        eval 'test "$(field strikes)" = 0 && test "$(field password_at)" = "$OLD_PW"'
}
case_ "a wrong password first, then the finger: the finger's success records no password" unix_first

fail_delay() {
    [ -x "$T/pamdrive" ] || gcc -O2 -Wall -o "$T/pamdrive" "$E2E/clients/pamdrive.c" -lpam
    # Two recorder lines: the second must not take the first's place as the client's callback.
    svc ta-twice "auth       substack     system-auth" "auth       optional     $MODULE authsucc $ARGS" \
        "auth       optional     $MODULE authsucc $ARGS"
    drive_ns() {  # drive_ns SERVICE PASSWORD: pamdrive -D, one pam_authenticate
        ns setsid -w timeout 60 "$T/pamdrive" -D -I tty=:0 "$1" "$TUSER" "$2" auth > "$T/out" 2>&1
        RC=$?
        OUT=$(cat "$T/out")
    }
    locked
    : > "$T/syslog"
    drive_ns ta-twice "not the password"
    state_out
    check "pamdrive -D, a wrong password, two authsucc lines: the client's callback gets the failure" \
        eval 'grep -q "^fail-delay: " <<<"$OUT" && ! grep -q "^fail-delay: Success" <<<"$OUT"'
    check "...nothing recorded" still_locked
    locked
    : > "$T/syslog"
    drive_ns ta-twice "$TPASS"
    state_out
    check "...the right password: the client's callback gets the success, once" \
        test "$(grep -c "^fail-delay: Success$" <<<"$OUT")" = 1
    check "...and the password is recorded, once" \
        eval 'lifted && logged "password recorded" && test "$(grep -c "password recorded" "$T/syslog")" = 1'
}
case_ "a client with its own PAM_FAIL_DELAY callback (the recorder borrows it for the call)" fail_delay

user_changed() {
    # A module after the recorder that sets PAM_USER (as a mapping module might): the stack's
    # success is then another user's, not the one whose password was typed.
    printf '%s\n' '#include <security/pam_modules.h>' \
        'PAM_EXTERN int pam_sm_authenticate(pam_handle_t *h, int f, int c, const char **v) { (void)f; return c > 0 && pam_set_item(h, PAM_USER, v[0]) == PAM_SUCCESS ? PAM_SUCCESS : PAM_IGNORE; }' \
        'PAM_EXTERN int pam_sm_setcred(pam_handle_t *h, int f, int c, const char **v) { (void)h; (void)f; (void)c; (void)v; return PAM_SUCCESS; }' \
        > "$T/setuser.c"
    gcc -shared -fPIC -Wall -o "$T/ns/pam_setuser.so" "$T/setuser.c"
    svc ta-switch "auth       substack     system-auth" "auth       optional     $MODULE authsucc $ARGS" \
        "auth       optional     $T/ns/pam_setuser.so root"
    locked
    : > "$T/syslog"
    run ta-switch "$TPASS"
    state_out
    check "the right password, then a module sets PAM_USER to root: the stack succeeds" has "successfully authenticated"
    check "...the test user's lockout stays (the success is root's)" still_locked
    check "...logged: the user changed, nothing recorded" logged "user $TUSER: the user changed after the password; nothing recorded"
}
case_ "the user changed after the password: nothing recorded" user_changed

word_anywhere() {
    svc ta-common-auth "auth [success=2 default=ignore] $MODULE $ARGS" "auth [success=1 default=ignore] pam_unix.so nullok try_first_pass" \
        "auth requisite pam_deny.so" "auth required pam_permit.so"
    svc ta-anywhere "@include ta-common-auth" "auth optional $MODULE config=$CONF authsucc debug"
    locked
    run ta-anywhere "$TPASS"
    state_out
    check "'auth optional pam_touchauth.so config=... authsucc debug': the right password lifts the lockout" \
        eval 'has "successfully authenticated" && lifted'
    locked
    run ta-anywhere "not the password"
    state_out
    check "...a wrong password lifts nothing" still_locked
}
case_ "the recorder's word anywhere on the line" word_anywhere

no_password() {
    # A primary module that sets no PAM_AUTHTOK (pam_permit here, as pam_fprintd or pam_u2f would)
    # after our finger line: the stack succeeds and the recorder runs.
    svc ta-nopass "auth [success=2 default=ignore] $MODULE $ARGS" "auth [success=1 default=ignore] pam_permit.so" \
        "auth requisite pam_deny.so" "auth required pam_permit.so" "auth optional $MODULE authsucc $ARGS"
    locked
    : > "$T/syslog"
    run ta-nopass ""
    state_out
    check "a stack that succeeds through pam_permit, no password typed: success" has "successfully authenticated"
    check "...the lockout stays (strikes 5, locked_at, password_at as they were)" still_locked
    check "...logged: no password typed, nothing to record" logged "user $TUSER: no password typed; nothing to record"
}
case_ "no password on the handle: a success that is not a password lifts nothing" no_password

# libpam-fprintd's profile next to ours, through the real pam-auth-update
# fprintd_profile: the profile as Debian ships it, from its .deb (not installed: its postinst
# would rewrite this machine's stacks), in the namespace's pam-configs (downloaded once a run).
DEB_DIR="$T/fprintd-deb"
fprintd_profile() {
    if [ ! -s "$DEB_DIR/x/usr/share/pam-configs/fprintd" ]; then
        mkdir -p "$DEB_DIR"
        (cd "$DEB_DIR" && apt-get download libpam-fprintd > /dev/null 2>&1) && dpkg-deb -x "$DEB_DIR"/libpam-fprintd_*.deb "$DEB_DIR/x"
    fi
    FPRINTD_PROFILE="$DEB_DIR/x/usr/share/pam-configs/fprintd"
    check "(setup) libpam-fprintd's pam-auth-update profile, from its .deb" test -s "$FPRINTD_PROFILE"
    cp "$FPRINTD_PROFILE" "$T/ns/pam-configs/"
}
update() { ns env DEBIAN_FRONTEND=noninteractive pam-auth-update --force "$@" > "$T/pau.out" 2>&1; }
common_auth() { OUT="common-auth: $(ns grep -v '^#' /etc/pam.d/common-auth | tr -s '\t ' ' ' | tr '\n' '|')"; }
# pau_fresh: what pam-auth-update reads and writes in the namespace as the host has it (its
# state in /var/lib/pam, the common-* files), our profile as shipped.
pau_fresh() {
    rm -rf "$T/ns/varlib/"* && cp -a /var/lib/pam/. "$T/ns/varlib/" 2>/dev/null
    cp -a /etc/pam.d/common-* "$T/ns/pam.d/"
    cp "$ROOT/examples/pam-configs/touchauth" "$T/ns/pam-configs/"
}
conflicts() {
    pau_fresh
    fprintd_profile
    update --enable fprintd
    update --enable touchauth
    common_auth
    check "fprintd's profile on, then ours enabled: ours is in common-auth" has "pam_touchauth.so"
    check "...and pam_fprintd is not (our profile's Conflicts field: one fingerprint prompt, three tries)" lacks "pam_fprintd.so"
    update --enable fprintd
    common_auth
    check "...enabling fprintd's afterwards leaves ours alone, not both" eval 'has "pam_touchauth.so" && lacks "pam_fprintd.so"'
}
case_ "libpam-fprintd's profile next to ours: our Conflicts field" conflicts

both_on() {
    pau_fresh
    fprintd_profile
    # Both on, as pam-auth-update wrote them before the Conflicts field: without our profile's
    # Conflicts field, the stack the issue found.
    grep -v '^Conflicts:' "$ROOT/examples/pam-configs/touchauth" > "$T/ns/pam-configs/touchauth"
    update --enable fprintd --enable touchauth
    common_auth
    check "(setup) without the Conflicts field pam-auth-update writes both: ours, pam_fprintd, pam_unix, ..., authsucc" \
        eval 'has "pam_touchauth.so" && has "pam_fprintd.so" && has "pam_touchauth.so authsucc"'
    svc ta-both "@include common-auth"
    locked
    : > "$T/syslog"
    run ta-both ""
    state_out
    check "that stack, the user locked out: our line refuses, the stand-in pam_fprintd matches: success" \
        eval 'has "Too many failed attempts" && has "successfully authenticated"'
    check "...pam_fprintd's match lifts nothing (no password was typed): strikes 5, locked_at, password_at kept" still_locked
    check "...logged: no password typed, nothing to record" logged "user $TUSER: no password typed; nothing to record"
}
case_ "libpam-fprintd's profile next to ours: both on (before the Conflicts field)" both_on

summary
