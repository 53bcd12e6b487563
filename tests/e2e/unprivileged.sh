#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile unprivileged users (issue 6): the caller's environment through real sudo, and the
# setuid helper that screen lockers need (README "Screen lockers"), attacked directly.
#
# All of it runs in one private mount namespace (unshare -m) that bind-mounts test files over
# /etc/pam.d/sudo, /etc/sudoers and /etc/security (a copy with our touchauth.conf, since a
# helper started by a user reads only the default config path): the real files are never changed.
# The helper runs from $W/bin, a root-owned 0755 directory, as a setuid-root copy (4755).
# The attacker is the test user: an interactive shell in tmux for sudo, `setpriv` for the rest.
source "$(dirname "$0")/lib.sh"

for tool in tmux sudo unshare setpriv gcc; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
make_user "$TUSER" "$TPASS"
OTHER=$NOPRINTS_USER  # a second user, with prints of her own here
make_user "$OTHER" "$TPASS"
TUID=$(id -u "$TUSER")
mkdir -m 0700 "$T/state"
W=$(mktemp -d /tmp/touchauth-unpriv.XXXXXX)
chmod 0755 "$W"
mkdir -m 0755 "$W/bin" "$W/etc-security"
mkdir -m 0777 "$W/u"  # the attacker's traces
cp "$HELPER" "$W/bin/touchauth"; chmod 4755 "$W/bin/touchauth"
SUID="$W/bin/touchauth"
CONF="$T/touchauth.conf"  # enroll() reads this one; the namespace sees a copy as the default
cp -a /etc/security/. "$W/etc-security/"
conf() {
    write_config "$CONF" "helper=$SUID" "state_dir=$T/state" "timeout=3" "password_after_boot=no" \
        "password_max_age=0" "password_after_enroll_change=no" "$@"
    cp -p "$CONF" "$W/etc-security/touchauth.conf"
}
conf
enroll "$TUSER" right-index-finger tu-right-index
enroll "$OTHER" right-index-finger other-right-index

printf '%s\n' "auth [success=done abort=die default=ignore] $MODULE debug" \
    "auth required pam_unix.so try_first_pass nodelay" "account required pam_permit.so" \
    "session required pam_permit.so" > "$T/pam-sudo"
printf '%s\n' 'Defaults !lecture, timestamp_timeout=0' 'root ALL=(ALL:ALL) ALL' \
    "$TUSER ALL=(root) ALL" > "$T/sudoers"
chmod 0440 "$T/sudoers"
mkdir -m 0755 "$W/svc"
printf '%s\n' "auth required $MODULE debug" "account required pam_permit.so" > "$W/svc/locker"
# The same with a prompt that outlasts every wait here (timeout is a key a locker may pass).
printf '%s\n' "auth required $MODULE debug timeout=60" "account required pam_permit.so" > "$W/svc/locker-long"
# A locker's stack with the password's recorder (the authsucc line after a requisite pam_unix).
printf '%s\n' "auth [success=done default=ignore] $MODULE debug" "auth requisite pam_unix.so nodelay" \
    "auth optional $MODULE authsucc debug" "account required pam_permit.so" > "$W/svc/locker-pw"

syslog_start
TMUX_SOCK="$W/tmux.sock"
NSPID=""
# The require_password_set case locks the test user's password (passwd -l): never left behind.
password_unlock() {
    [ "$(passwd -S "$TUSER" 2>/dev/null | awk '{print $2}')" = L ] && passwd -u "$TUSER" > /dev/null
    return 0
}
trap 'password_unlock; tm kill-server 2>/dev/null; [ -n "$NSPID" ] && kill "$NSPID" 2>/dev/null; syslog_stop; rm -rf "$W" "$T"' EXIT

# The namespace: a sleeper holds it; `ns CMD...` runs a command inside it (nsenter).
# Where another run already serves /dev/log, ours is bound over it in here (as in_syslog_ns does).
unshare -m sh -c 'mount --bind "$1" /etc/pam.d/sudo && mount --bind "$2" /etc/sudoers &&
    mount --bind "$3" /etc/security && { [ "$4" = /dev/log ] || mount --bind "$4" /dev/log; } &&
    exec sleep 100000' sh "$T/pam-sudo" "$T/sudoers" "$W/etc-security" "$SYSLOG_SOCK" &
NSPID=$!
for _ in $(seq 200); do
    [ "$(readlink /proc/$NSPID/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] &&
        nsenter -t "$NSPID" -m grep -q "virtual_device" /etc/security/touchauth.conf 2>/dev/null && break
    sleep 0.01
done
ns() { nsenter -t "$NSPID" -m "$@"; }
# as_user CMD...: the attacker, with nothing inherited but what the command line sets.
AS_USER=(setpriv --reuid="$TUSER" --regid="$TUSER" --init-groups env -i PATH=/usr/bin:/bin HOME="$W/u")
as_user() { ns "${AS_USER[@]}" "$@"; }
TGID=$(id -g "$TUSER")
# creds FD CMD...: the attacker runs CMD with FD a full pipe; OUT gets the credentials CMD has
# while it is blocked writing there (clients/creds.py), its exit status and what it wrote.
creds() { local fd=$1; shift; OUT=$(ns python3 "$E2E/clients/creds.py" "$fd" "${AS_USER[@]}" "$@" 2>&1); }
uid_line() { grep -q "^Uid:[[:space:]]*$1[[:space:]]*$2[[:space:]]*$3[[:space:]]*$4\$" <<<"$OUT"; }
gid_line() { grep -q "^Gid:[[:space:]]*$1[[:space:]]*$2[[:space:]]*$3[[:space:]]*$4\$" <<<"$OUT"; }
dropped() { uid_line "$TUID" "$TUID" "$TUID" "$TUID" && gid_line "$TGID" "$TGID" "$TGID" "$TGID"; }
# descendant PID NAME [SECONDS]: waits until a process called NAME runs below PID; prints its pid.
descendant() {
    local root=$1 name=$2 deadline=$(($(now_ms) + ${3:-10} * 1000)) p c
    local -a queue
    while :; do
        queue=("$root")
        while [ ${#queue[@]} -gt 0 ]; do
            p=${queue[0]}; queue=("${queue[@]:1}")
            for c in $(pgrep -P "$p"); do
                [ "$(cat "/proc/$c/comm" 2>/dev/null)" = "$name" ] && { echo "$c"; return 0; }
                queue+=("$c")
            done
        done
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.01
    done
}
# child_of PID NAME [SECONDS]: the same for a direct child of PID.
child_of() {
    local deadline=$(($(now_ms) + ${3:-10} * 1000)) c
    [ -n "$1" ] || return 1  # no parent found: never pgrep -P 0
    until c=$(pgrep -P "$1" -x "$2" | head -1) && [ -n "$c" ]; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.01
    done
    echo "$c"
}

# The attacker's kit: a fake sensor that answers like the virtual driver on a socket of theirs,
# sending the right finger's id to whoever listens there, and a preload library that leaves a mark.
EVIL="$W/u/evil.sock"
cat > "$W/u/evil.c" <<EOF
#include <stdio.h>
__attribute__((constructor)) static void mark(void) { FILE *f = fopen("$W/u/preloaded", "a"); if (f) { fputs("loaded\n", f); fclose(f); } }
EOF
gcc -shared -fPIC -o "$W/u/evil.so" "$W/u/evil.c"
chmod 0755 "$W/u/evil.so"
# Listens on the evil socket (in case a sensor would connect) and, whenever someone else listens
# there instead (a helper that obeyed FP_VIRTUAL_DEVICE), sends it the right finger.
cat > "$W/u/evil.py" <<'EOF'
import os, socket, sys, time
path, marker = sys.argv[1], sys.argv[2]
open(path + ".pid", "w").write(str(os.getpid()))
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); srv.bind(path); srv.listen(4); srv.setblocking(False)
ino = os.stat(path).st_ino
end = time.monotonic() + float(sys.argv[3])
while time.monotonic() < end:
    try:
        c, _ = srv.accept(); open(marker, "a").write("a sensor connected to us\n"); c.close()
    except BlockingIOError:
        pass
    try:
        if os.stat(path).st_ino != ino:
            open(marker, "a").write("someone replaced our socket\n")
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); s.sendall(b"SCAN tu-right-index"); s.close()
    except OSError:
        pass
    time.sleep(0.01)
EOF
ATTACK_ENV=(FP_VIRTUAL_DEVICE="$EVIL" FP_VIRTUAL_DEVICE_STORAGE="$EVIL" FP_DRIVERS_WHITELIST=virtual_device
    GIO_EXTRA_MODULES="$W/u" G_DEBUG=fatal-warnings G_MESSAGES_DEBUG=all LD_PRELOAD="$W/u/evil.so"
    LD_LIBRARY_PATH="$W/u" SWIFT_BACKTRACE=enable=on,swift-backtrace=/bin/false)
start_evil() {  # start_evil SECONDS: the attacker's fake sensor, as the attacker
    rm -f "$EVIL" "$EVIL.pid" "$W/u/evil.log"
    as_user python3 "$W/u/evil.py" "$EVIL" "$W/u/evil.log" "$1" &
    EVIL_PID=$!
    for _ in $(seq 200); do [ -S "$EVIL" ] && break; sleep 0.01; done
}
stop_evil() {  # (the python pid, not the wrapper's: killing nsenter's parent leaves it running)
    kill "$(cat "$EVIL.pid" 2>/dev/null)" 2>/dev/null; wait "$EVIL_PID" 2>/dev/null
}
evil_untouched() { [ ! -s "$W/u/evil.log" ]; }
not_preloaded() { [ ! -e "$W/u/preloaded" ]; }
# (fresh_state, strikes, set_state: tests/e2e/kit/state.sh.) Each case below writes the state it
# starts from; a filtered run (scripts/test.sh unprivileged:REGEX) runs only the cases it picks.
locker() {  # locker USER-TO-VERIFY SCANS...: pamtester run by the test user (as a screen locker)
    local who=$1; shift
    rm -f "$SOCK"
    local sender=""
    if [ $# -gt 0 ]; then python3 "$E2E/vsensor.py" "$SOCK" "$@" > /dev/null 2>&1 & sender=$!; fi
    as_user setsid -w timeout 30 env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \
        PAM_WRAPPER_SERVICE_DIR="$W/svc" pamtester -v -I tty=:0 locker "$who" authenticate < /dev/null > "$T/out" 2>&1
    RC=$?
    [ -n "$sender" ] && { kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null; }
    OUT=$(cat "$T/out")
}
req() {  # req USER ARGS...: a request line by line
    local user=$1; shift
    printf 'touchauth-request 1\nuser %s\nservice locker\nfallback none\n' "$user"
    for a in "$@"; do printf 'arg %s\n' "$a"; done
    printf 'end\n'
}
direct() {  # direct REQUEST-FILE [SCANS...]: the attacker runs the setuid helper, stdin a file
    local file=$1; shift
    rm -f "$SOCK"
    local sender=""
    if [ $# -gt 0 ]; then python3 "$E2E/vsensor.py" "$SOCK" "$@" > /dev/null 2>&1 & sender=$!; fi
    OUT=$(as_user "$SUID" pam-verify < "$file" 2>&1)
    RC=$?
    [ -n "$sender" ] && { kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null; }
}
req "$TUSER" > "$W/u/plain.req"  # (the attacker's plain request, for herself)
helper_gone() { local st; [ -n "$LPID" ] || return 1; st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$LPID/stat" 2>/dev/null); [ -z "$st" ] || [ "$st" = Z ]; }

sudo_attacker_env() {
    fresh_state
    ns tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s t -x 160 -y 50 \
        "setpriv --reuid=$TUSER --regid=$TUSER --init-groups env -i HOME=$W/u TERM=screen PATH=/usr/bin:/bin PS1='\$ ' bash --norc --noprofile"
    start_evil 8
    rm -f "$SOCK" "$W/u/ran"
    tm send-keys -t t "clear; $(printf '%q ' "${ATTACK_ENV[@]}") sudo touch $W/u/ran" Enter
    wait_for "" "Place your finger" 10
    OUT=$(screen)
    check "(control) our stack runs under sudo: the fingerprint prompt" has "Place your finger"
    # The helper: the child of this pane's sudo (the shell's child), not any touchauth on the machine.
    SUDO_PID=$(descendant "$(tm display -p -t t '#{pane_pid}')" sudo 5)
    HPID=$(child_of "$SUDO_PID" touchauth 5)
    ENVIRON=$(tr '\0' '\n' < "/proc/$HPID/environ" 2>/dev/null)
    HSTATUS=$(grep -E '^(Name|PPid|Uid|Gid):' "/proc/$HPID/status" 2>/dev/null)
    OUT="sudo pid $SUDO_PID, helper pid $HPID: $HSTATUS
    environment: $ENVIRON"
    check "(control) the helper found as the child of the pane's sudo" test -n "$SUDO_PID" -a -n "$HPID" -a -n "$HSTATUS"
    check "the helper under sudo got none of FP_*, G_*, GIO_*, LD_*, SWIFT_* (only the locale)" \
        test -n "$HPID" -a -z "$(grep -E '^(FP_|G_|GIO_|LD_|SWIFT_)' <<<"$ENVIRON")"
    # sudo runs with real uid = the user, effective uid 0: without the module's setuid(0) the helper
    # would read "Uid: <user> 0 0 0" and take itself for an unprivileged caller.
    check "...and it runs as root through and through: Uid 0 0 0 0 (the module's setuid(0), as pam_unix does)" \
        grep -qE "^Uid:[[:space:]]+0[[:space:]]+0[[:space:]]+0[[:space:]]+0$" <<<"$HSTATUS"
    check "the helper listens on the root-only socket from root's config" test -S "$SOCK"
    wait_for "" "password for $TUSER" 10
    OUT=$(screen)
    check "the attacker's sensor never authenticated: the fingerprint timed out to the password" has "password for $TUSER"
    tm send-keys -t t C-c
    # (Ctrl-C at sudo's prompt ends sudo: wait for that, not a time)
    for _ in $(seq 500); do [ -n "$SUDO_PID" ] && kill -0 "$SUDO_PID" 2>/dev/null || break; sleep 0.01; done
    stop_evil
    check "...nothing ran" test ! -e "$W/u/ran"
    OUT=$(cat "$W/u/evil.log" 2>/dev/null)
    check "...the attacker's socket was never taken over nor used" evil_untouched
    check "...the attacker's preload library was loaded nowhere" not_preloaded
    tm kill-server 2>/dev/null
}
case_ "real sudo, the attacker's environment: FP_*, GIO_*, G_*, LD_*, SWIFT_BACKTRACE" sudo_attacker_env

locker_self() {
    fresh_state
    : > "$T/syslog"
    locker "$TUSER" "SCAN tu-right-index"
    check "a user verifies herself through the setuid helper" succeeded
    locker "$TUSER" "SCAN wrong" "SCAN wrong" "SCAN wrong"
    check "three wrong fingers: PAM_MAXTRIES" has "$MSG_MAXTRIES"
    check "...each is a strike on disk (strikes 3)" test "$(strikes)" = 3
    locker "$TUSER" "SCAN tu-right-index"
    check "a match through the setuid helper succeeds" succeeded
    check "...and starts the strikes over" test "$(strikes)" = 0
}
case_ "the setuid helper for screen lockers: pamtester as the user, helper= from root's config" locker_self

locker_helper_uid() {
    fresh_state
    : > "$T/syslog"
    # While a locker's prompt is up: the helper below this very pamtester (no scan comes; it times out).
    rm -f "$SOCK"
    as_user setsid -w timeout 30 env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \
        PAM_WRAPPER_SERVICE_DIR="$W/svc" pamtester -v -I tty=:0 locker "$TUSER" authenticate < /dev/null > /dev/null 2>&1 &
    LOCKER_JOB=$!
    PT=$(descendant "$LOCKER_JOB" pamtester 5)
    LPID=$(child_of "$PT" touchauth 5)
    for _ in $(seq 500); do [ -S "$SOCK" ] && break; sleep 0.01; done  # it has opened the sensor: past its checks
    OUT="pamtester $PT, helper $LPID: $(grep -E '^(Name|PPid|Uid|Gid):' "/proc/$LPID/status" 2>/dev/null)"
    wait "$LOCKER_JOB"
    check "the locker's helper (child of its pamtester) keeps root as its effective uid only: Uid $TUID 0 0 0" \
        uid_line "$TUID" 0 0 0
    check "...and the user's groups: Gid $TGID $TGID $TGID $TGID" gid_line "$TGID" "$TGID" "$TGID" "$TGID"
}
case_ "the setuid helper for screen lockers: the locker's helper keeps root as its effective uid only" locker_helper_uid

locker_other_user() {
    fresh_state
    : > "$T/syslog"
    locker "$OTHER" "SCAN other-right-index"
    check "the user asks to verify another user, with that user's finger: no success" lacks "successfully authenticated"
    check "...syslog: refused" logged "asked to verify another user; refused"
    locker root "SCAN other-right-index"
    check "...nor root" lacks "successfully authenticated"
}
case_ "the setuid helper for screen lockers: another user, or root, refused" locker_other_user

locker_disabled() {
    fresh_state
    # `touchauth disable`: a locker's module runs as the user and cannot see the marker in root's
    # state_dir (0700), so it starts the helper, whose own check must send her to the password.
    ns env -i PATH=/usr/bin:/bin "$HELPER" disable --user "$TUSER" > "$T/disable.out" 2>&1
    OUT=$(cat "$T/disable.out")
    check "(setup) touchauth disable for the user: the marker in root's state_dir" test -e "$T/state/$TUID.disabled"
    : > "$T/syslog"
    locker "$TUSER" "SCAN tu-right-index"
    check "switched off, a locker as the user, her right finger scanned: no success" lacks "successfully authenticated"
    check "...the password is next: PAM_AUTHINFO_UNAVAIL, as the module's own skip gives" has "$MSG_UNAVAIL"
    check "...the setuid helper refused before the sensor: it never opened (no socket)" test ! -e "$SOCK"
    rm -f "$T/state/$TUID.disabled"
    check "(cleanup) switched on again" test ! -e "$T/state/$TUID.disabled"
}
case_ "the setuid helper for screen lockers: touchauth disable (the helper's own check)" locker_disabled

# the setuid helper started directly with forged requests
forged_other_user() {
    fresh_state
    req "$OTHER" > "$W/u/other.req"
    direct "$W/u/other.req" "SCAN other-right-index"
    check "forged request for another user, her finger scanned: systemCancel" has "result systemCancel"
    check "...never success" lacks "result success"
}
case_ "the setuid helper started directly with forged requests: another user" forged_other_user

forged_arguments() {
    fresh_state
    # The attacker's own prints, state and sensor, named in the request: all ignored.
    mkdir -p "$W/u/prints/$TUSER/virtual_device/0" "$W/u/state"
    cp "$T/prints/$OTHER/virtual_device/0/7" "$W/u/prints/$TUSER/virtual_device/0/7"
    req "$TUSER" "config=$W/u/evil.conf" "print_dir=$W/u/prints" "state_dir=$W/u/state" \
        "virtual_device=$EVIL" "helper=/bin/true" "lockout_threshold=1000" "max_tries=1" > "$W/u/self.req"
    : > "$T/syslog"
    start_evil 6
    direct "$W/u/self.req" "SCAN other-right-index"
    stop_evil
    check "forged arguments (print_dir, state_dir, virtual_device, config) + a foreign finger: no success" lacks "result success"
    check "...the attacker's fake sensor was never used" evil_untouched
    check "...the print_dir argument was ignored and logged" logged "module argument print_dir ignored (caller is not root)"
    check "...config= too" logged "module argument config ignored"
    check "...the strike went to root's state dir, not the attacker's" test "$(strikes)" = 1 -a ! -e "$W/u/state/$TUID"
    direct "$W/u/self.req" "SCAN tu-right-index"
    check "(control) the same forged request with her own finger on root's sensor: success" has "result success"
}
case_ "the setuid helper started directly with forged requests: the attacker's own prints, state and sensor" forged_arguments

forged_environment() {
    fresh_state
    # The attacker's environment on the setuid helper itself (AT_SECURE + sanitizeEnvironment).
    rm -f "$SOCK" "$W/u/preloaded"
    start_evil 6
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null 2>&1 &
    sender=$!
    OUT=$(as_user env "${ATTACK_ENV[@]}" "$SUID" pam-verify < "$W/u/plain.req" 2>&1)
    wait "$sender"
    stop_evil
    check "setuid helper with the attacker's environment: the right finger on root's sensor works" has "result success"
    check "...the attacker's sensor was never used" evil_untouched
    check "...LD_PRELOAD was not loaded (AT_SECURE)" not_preloaded
    check "...Swift's backtracer refuses SWIFT_BACKTRACE in a privileged process" has "not supported for privileged executables"
}
case_ "the setuid helper started directly with the attacker's environment" forged_environment

# a restricted caller's module arguments: the lockout, unlock_time, the trust rules, lid_dir, debug
# (a case for each key)
# Each key is forged by the attacker (the setuid helper, her own prints and finger) where it would
# change the outcome, and must not apply (Privilege.filter). The control sends the same request
# as root through the plain helper, where it does apply: so each check can tell.
root_direct() {  # root_direct REQUEST-FILE [SCANS...]: as direct, run by root (every argument applies)
    local file=$1; shift
    rm -f "$SOCK"
    local sender=""
    if [ $# -gt 0 ]; then python3 "$E2E/vsensor.py" "$SOCK" "$@" > /dev/null 2>&1 & sender=$!; fi
    OUT=$(ns env -i PATH=/usr/bin:/bin "$HELPER" pam-verify < "$file" 2>&1)
    RC=$?
    [ -n "$sender" ] && { kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null; }
}
ignored() { logged "uid $TUID: module argument $1 ignored (caller is not root)"; }
NOW=$(date +%s)
OLD_BOOT=00000000-1111-2222-3333-444444444444
# filter_case KEY "ARGS" "STATE" NAME EXPECT CONTROL-EXPECT SCAN: one key, the attacker then root.
filter_case() {
    local key=$1 arg=$2 state=$3 name=$4 expect=$5 control=$6 scan=$7
    # shellcheck disable=SC2086  # ARGS is a word list
    req "$TUSER" $arg > "$W/u/f.req"
    # shellcheck disable=SC2086  # STATE is five words
    set_state $state
    : > "$T/syslog"
    direct "$W/u/f.req" "$scan"
    check "$arg from the user: $name" eval "$expect"
    check "...$key logged as ignored" ignored "$key"
    # shellcheck disable=SC2086
    set_state $state
    : > "$T/syslog"
    root_direct "$W/u/f.req" "$scan"
    check "(control) $arg from root applies" eval "$control"
}
fc_unlock_time() {
    filter_case unlock_time unlock_time=60 "5 $((NOW - 3600)) - - -" "locked an hour ago, still locked" \
        'has "result biometryLockout" && grep -qx "locked_at $((NOW - 3600))" "$T/state/$TUID"' \
        'has "result success"' "SCAN tu-right-index"
}
case_ "unlock_time=60 from the user: locked an hour ago, still locked" fc_unlock_time
fc_lockout_threshold() {
    filter_case lockout_threshold "lockout_threshold=1000 max_tries=1" "4 - - - -" "the fifth wrong finger still locks" \
        'has "result biometryLockout" && ! grep -qx "locked_at -" "$T/state/$TUID"' \
        'has "result authenticationFailed" && grep -qx "strikes 5" "$T/state/$TUID" && grep -qx "locked_at -" "$T/state/$TUID"' \
        "SCAN wrong"
}
case_ "lockout_threshold=1000 max_tries=1 from the user: the fifth wrong finger still locks" fc_lockout_threshold
fc_password_after_boot() {
    conf password_after_boot=yes
    filter_case password_after_boot password_after_boot=no "0 - $NOW $OLD_BOOT -" \
        "root's config says yes, another boot: the password first" \
        'has "after a restart" && lacks "result success"' 'has "result success"' "SCAN tu-right-index"
    conf
}
case_ "password_after_boot=no from the user: root's config says yes, another boot: the password first" fc_password_after_boot
fc_password_max_age() {
    conf password_max_age=48
    filter_case password_max_age password_max_age=0 "0 - $((NOW - 49 * 3600)) - -" \
        "root's config says 48 h, 49 h without: the password first" \
        'has "has not been used for 48 hours" && lacks "result success"' 'has "result success"' "SCAN tu-right-index"
    conf
}
case_ "password_max_age=0 from the user: root's config says 48 h, 49 h without: the password first" fc_password_max_age
fc_password_after_enroll_change() {
    conf password_after_enroll_change=yes
    filter_case password_after_enroll_change password_after_enroll_change=no "0 - $NOW - -" \
        "root's config says yes, the prints' hash differs: the password first" \
        'has "after fingerprints were added or changed" && lacks "result success"' 'has "result success"' "SCAN tu-right-index"
    conf
}
case_ "password_after_enroll_change=no from the user: root's config says yes, the prints' hash differs: the password first" fc_password_after_enroll_change
fc_require_password_set() {
    conf  # (require_password_set: yes, the default)
    passwd -l "$TUSER" > /dev/null
    filter_case require_password_set require_password_set=no "0 - - - -" "a locked password: set one first" \
        'has "Set a password for this account" && lacks "result success"' 'has "result success"' "SCAN tu-right-index"
    password_unlock
}
case_ "require_password_set=no from the user: a locked password: set one first" fc_require_password_set
# lid_dir and sysfs_dir (which readers a closed lid covers, docs/POLICY.md#the-lid-and-the-readers-at-hand) are root's: a value
# root's parser refuses shows whether it got that far.
fc_lid_dir() {
    filter_case lid_dir lid_dir=not/absolute "0 - - - -" "never parsed, the finger works" \
        'has "result success"' 'has "result systemCancel" && logged "configuration refused"' "SCAN tu-right-index"
}
case_ "lid_dir=not/absolute from the user: never parsed, the finger works" fc_lid_dir
fc_sysfs_dir() {
    filter_case sysfs_dir sysfs_dir=not/absolute "0 - - - -" "never parsed, the finger works" \
        'has "result success"' 'has "result systemCancel" && logged "configuration refused"' "SCAN tu-right-index"
}
case_ "sysfs_dir=not/absolute from the user: never parsed, the finger works" fc_sysfs_dir
fc_debug() {
    filter_case debug debug "0 - - - -" "no debug lines (the match is not logged)" \
        'has "result success" && ! logged "$TUSER: matched right-index-finger"' \
        'has "result success" && logged "$TUSER: matched right-index-finger"' "SCAN tu-right-index"
}
case_ "debug from the user: no debug lines (the match is not logged)" fc_debug
fresh_state

refuses() {
    fresh_state
    OUT=$(ns setpriv --reuid="$TUSER" --regid="$TUSER" --init-groups script -qec "$SUID pam-verify" /dev/null < /dev/null 2>&1)
    check "stdin a terminal: refused" has "stdin is a terminal"
    # Privileges are seen while the helper runs, not guessed from an exit status: each command is
    # caught blocked on its first write to a full pipe (clients/creds.py), then its /proc status read.
    creds 1 "$SUID" pam-verify < "$W/u/plain.req"
    check "(control) pam-verify, caught writing its header: root kept as the effective uid (Uid $TUID 0 0 0)" uid_line "$TUID" 0 0 0
    creds 2 "$SUID" pam-verify extra < "$W/u/plain.req"
    check "argv with an extra word: refused (exit 2, the usage line)" eval 'has "exit 2" && has "unexpected argument '"'"'extra'"'"'"'
    check "...and it ran unprivileged: caught writing that line, Uid $TUID x4, Gid $TGID x4" dropped
    OUT=$(as_user "$SUID" pam-account < "$W/u/plain.req" 2>&1); RC=$?
    check "pam-account (it clears the lockout): refused (exit 2)" test "$RC" = 2 -a -n "$(grep 'only root' <<<"$OUT")"
    printf 'touchauth-state 1\nstrikes 5\nlocked_at 1700000000\npassword_at -\npassword_boot_id -\nprints_hash -\n' > "$T/state/$TUID"
    chmod 0600 "$T/state/$TUID"
    creds 2 "$SUID" unlock "$TUSER" < /dev/null
    check "unlock by the user: the lockout stays" grep -q "locked_at 1700000000" "$T/state/$TUID"
    check "...it ran with privileges dropped (caught writing its error: Uid $TUID x4, Gid $TGID x4)" dropped
    creds 2 "$SUID" config-dump --config /etc/shadow < /dev/null
    check "config-dump --config /etc/shadow by the user: unreadable once privileges are dropped" lacks "root:"
    check "...it ran with privileges dropped (Uid $TUID x4, Gid $TGID x4)" dropped
    locker "$TUSER" "SCAN tu-right-index"
    check "a locked user: no success through the setuid helper" lacks "successfully authenticated"
}
case_ "the setuid helper refuses what the module never asks" refuses

locker_password() {
    # The locker runs PAM as the user: its module must not start the helper in pam-account mode (the
    # setuid helper refuses it, and could not see the stack that made the password succeed anyway).
    set_state 5 1700000000 - - -
    : > "$T/syslog"
    rm -f "$SOCK"
    printf '%s\n' "$TPASS" | as_user setsid -w timeout 30 env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \
        PAM_WRAPPER_SERVICE_DIR="$W/svc" pamtester -v -I tty=:0 locker-pw "$TUSER" authenticate > "$T/out" 2>&1
    OUT="$(cat "$T/out")
    syslog: $(cat "$T/syslog")
    state: $(tr '\n' ' ' < "$T/state/$TUID")"
    check "(control) a locked user's own password through the locker's stack with an authsucc line: success" \
        eval 'succeeded && has "Too many failed attempts"'
    # (The module's own log lines, on pamtester's stderr under pam_wrapper: no syslog socket involved.)
    check "...its authsucc line started no helper: no helper failure, no failed recording in the module's log" \
        eval 'lacks "could not record the password authentication" && lacks "helper exit status"'
    check "...the lockout stays on disk (only root clears it)" grep -qx "locked_at 1700000000" "$T/state/$TUID"
}
case_ "a screen locker's password and the authsucc line: only root clears a lockout, so nothing is tried" locker_password

killed_keeps_strike() {
    fresh_state
    for i in 1 2 3; do
        rm -f "$SOCK"
        as_user "$SUID" pam-verify < "$W/u/plain.req" > /dev/null 2>&1 &
        job=$!
        # Killed once the scan's charge is on disk (strikes $i) and the sensor is open (its socket):
        # the helper opens the reader first and charges right after, so the socket alone is not
        # the charge. A deadline of 15 s: under load the helper takes longer to get there.
        for _ in $(seq 1500); do [ -S "$SOCK" ] && [ "$(strikes)" = "$i" ] && break; sleep 0.01; done
        pkill -KILL -x -U "$TUSER" touchauth
        wait "$job" 2>/dev/null
    done
    OUT="state: $(tr '\n' ' ' < "$T/state/$TUID" 2>/dev/null)"
    check "three helpers SIGKILLed mid-scan by their user: 3 strikes on disk" test "$(strikes)" = 3
    direct "$W/u/plain.req" "SCAN tu-right-index"
    check "(control) the right finger still works and clears them" test "$(strikes)" = 0
}
case_ "a killed setuid helper keeps its strike (strikes are charged before the sensor is armed)" killed_keeps_strike

# execve of a setuid file clears the parent-death signal the module set, so this helper outlived
# its killed locker, sensor armed, until its own timeout. It now sets SIGTERM itself
# (Termination.swift, dieWithTheHost): the scan is cancelled and its charged strike refunded, as
# after Enter.
locker_killed() {
    fresh_state
    rm -f "$SOCK"
    as_user setsid -w timeout 30 env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \
        PAM_WRAPPER_SERVICE_DIR="$W/svc" pamtester -v -I tty=:0 locker-long "$TUSER" authenticate < /dev/null > /dev/null 2>&1 &
    LOCKER_JOB=$!
    PT=$(descendant "$LOCKER_JOB" pamtester 5)
    LPID=$(child_of "$PT" touchauth 5)
    # The reader is open (its socket) and the scan's charge on disk: the helper opens first and
    # charges right after, so waiting for the socket alone raced the charge (seen once under CI).
    for _ in $(seq 1500); do [ -S "$SOCK" ] && [ "$(strikes)" = 1 ] && break; sleep 0.01; done
    OUT="pamtester ${PT:-none}, helper ${LPID:-none}, state: $(tr '\n' ' ' < "$T/state/$TUID" 2>/dev/null)"
    check "(control) the locker's helper is up, its strike charged on disk (strikes 1)" \
        eval '[ -n "$LPID" ] && [ -S "$SOCK" ] && [ "$(strikes)" = 1 ]'
    # Only a pid we got: `kill -KILL 0` would end the whole test run's process group.
    [ -n "$PT" ] && kill -KILL "$PT"
    wait "$LOCKER_JOB" 2>/dev/null
    # Gone: no /proc entry, or a zombie its new parent has not reaped yet.
    for _ in $(seq 1000); do helper_gone && break; sleep 0.01; done
    OUT="helper ${LPID:-none}: $([ -n "$LPID" ] && grep -E '^(State|PPid):' "/proc/$LPID/status" 2>/dev/null | tr '\n' ' ')"
    check "the locker SIGKILLed: its setuid helper is gone within 10 s (not at its 60 s timeout)" \
        eval '[ -n "$LPID" ] && helper_gone'
    pkill -KILL -x -U "$TUSER" touchauth 2>/dev/null
    OUT="state: $(tr '\n' ' ' < "$T/state/$TUID" 2>/dev/null)"
    check "...and it gave the scan's charge back (strikes 0): the locker's death is no wrong finger" \
        test "$(strikes)" = 0
}
case_ "the screen locker killed while its prompt is up: the setuid helper goes too, and gives its charge back" locker_killed

# The setuid helper keeps the caller's real uid, so its user may signal it (the locker's module,
# which runs as the user, must be able to stop it). A stopped helper holds the opened reader;
# the module in the running locker SIGKILLs it at the prompt's deadline (timeout=3 here), which
# a stopped process cannot delay. Stopping the locker too holds it longer: SECURITY.md#user-against-user.
helper_stopped() {
    fresh_state
    rm -f "$SOCK"
    t0=$(now_ms)
    as_user setsid -w timeout 30 env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \
        PAM_WRAPPER_SERVICE_DIR="$W/svc" pamtester -v -I tty=:0 locker "$TUSER" authenticate < /dev/null > "$T/stopped.out" 2>&1 &
    LOCKER_JOB=$!
    PT=$(descendant "$LOCKER_JOB" pamtester 5)
    LPID=$(child_of "$PT" touchauth 5)
    for _ in $(seq 500); do [ -S "$SOCK" ] && break; sleep 0.01; done  # the reader is open
    STOPPED=no
    [ -n "$LPID" ] && [ -S "$SOCK" ] && as_user kill -STOP "$LPID" && STOPPED=yes
    wait "$LOCKER_JOB" 2>/dev/null
    took=$(($(now_ms) - t0))
    for _ in $(seq 1000); do helper_gone && break; sleep 0.01; done
    OUT="helper ${LPID:-none} stopped by its user: $STOPPED; the locker ended after $took ms: $(cat "$T/stopped.out")"
    check "(setup) the user stopped her own setuid helper with the reader open (kill -STOP as the user)" test "$STOPPED" = yes
    check "the stopped helper is gone once the locker's prompt deadline passed (took $took ms, timeout=3)" \
        eval '[ -n "$LPID" ] && helper_gone'
    check "...the locker got no success, the password is next" lacks "successfully authenticated"
    [ -n "$LPID" ] && ! helper_gone && kill -KILL "$LPID" 2>/dev/null
}
case_ "the user SIGSTOPs her setuid helper mid-prompt (holding the reader): the locker's module ends it at the deadline" helper_stopped

summary
