#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A touch answers exactly one request (issue 37, docs/POLICY.md#one-request-at-a-time): real sudo
# in tmux, in a private mount namespace whose /etc/pam.d/sudo and /etc/sudoers are our test files
# and whose /run/systemd is a fake logind with the user's local active session 37 on seat0 (the
# windows' processes in its cgroup scope), against libfprint's virtual sensor and pam_unix.so.
#   1. two sudo of one user, the second while the first is armed: both to the password, each
#      names the other, no strike, no helper left, and the next sudo alone gets the finger;
#   2. the attack (CVE-2024-37408 for pam_fprintd): a background job's `script -qc 'sudo ...'`
#      armed in the same session, the user's visible `sudo id` then names it, and a touch lets
#      nobody in;
#   3. a helper SIGKILLed while armed: its entry does not block the next prompt, which removes it;
#   4. another user's request (pamtester, a display) while one is armed: both to the password;
#      one with PAM_XDISPLAY and no terminal is named by its display, and the module's audit
#      lines of both name both helpers' pids.
# The registry is the sandbox's own /run/touchauth (tests/e2e/sandbox.sh).
# The common setup (users, prints, the sudo namespace and its tmux windows a and b, the syslog
# capture) is shared; each case (case_ of lib.sh) starts from a fresh state file and ends its own
# sudo and helpers, so it passes alone and `scripts/test.sh overlap:REGEX` runs only what it picks.
source "$(dirname "$0")/lib.sh"

for tool in tmux sudo script unshare setpriv pamtester socat; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }
REG=/run/touchauth

OTHER=$NOPRINTS_USER   # the other user of case 4 (enrolled here, in this suite's print_dir)
make_user "$TUSER" "$TPASS"
make_user "$OTHER" "$TPASS"
TUID=$(id -u "$TUSER")
CONF="$T/touchauth.conf"
STATE_DIR="$STATE"   # (the kit's strikes and fresh_state read it: tests/e2e/kit/state.sh)
mkdir -m 0700 "$STATE_DIR"
source "$E2E/ttykit.sh"
conf "lockout_threshold=1000"
enroll "$TUSER" right-index-finger tu-right-index
enroll "$OTHER" right-index-finger ot-right-index
check "(setup) both users enrolled" test -f "$T/prints/$TUSER/virtual_device/0/7" -a -f "$T/prints/$OTHER/virtual_device/0/7"
entries() { ls "$REG" 2>/dev/null | grep -v '^lock$' | tr '\n' ' '; }

LINE="auth [success=done abort=die default=ignore] $MODULE config=$CONF debug"
printf '%s\n' "$LINE" "auth required pam_unix.so try_first_pass nodelay" \
    "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-sudo"
printf '%s\n' 'Defaults !lecture, timestamp_timeout=0' 'root ALL=(ALL:ALL) ALL' \
    "$TUSER ALL=(root) ALL" > "$T/sudoers"
chmod 0440 "$T/sudoers"
service other "auth [success=done default=ignore] $MODULE config=$CONF debug reason=the-other-users-login" \
    "auth required pam_unix.so nodelay"

# The fake logind (tests/e2e/kit/logind.sh, in $T/rs): session 37 of $TUSER, local, active, a
# tty on seat0.
logind_front 37 "$TUID"
SCOPE="$CG/user.slice/user-$TUID.slice/session-37.scope"
[ -d "$SCOPE" ] && { echo "$SCOPE exists already: not ours to use"; echo "0 passed, 1 failed"; exit 1; }
OURS=""
for d in "$SCOPE" "$CG/user.slice/user-$TUID.slice" "$CG/user.slice"; do [ -d "$d" ] || OURS+=" $d"; done
cleanup() {
    tm kill-server 2> /dev/null
    [ -n "${HIDDEN:-}" ] && kill -KILL "$HIDDEN" 2> /dev/null
    syslog_stop
    local d p i
    for d in $OURS; do
        [ -d "$d" ] || continue
        for i in $(seq 100); do [ -s "$d/cgroup.procs" ] || break; sleep 0.02; done
        for p in $(cat "$d/cgroup.procs" 2> /dev/null); do echo "$p" > "$CG/cgroup.procs" 2> /dev/null; done
        rmdir "$d" 2> /dev/null
    done
    rm -rf "$W" "$T"
}
trap cleanup EXIT

syslog_start
unshare -m --propagation private sh -c 'mount --bind "$1" /etc/pam.d/sudo && mount --bind "$2" /etc/sudoers &&
    mount --bind "$3" /run/systemd && { [ "$6" = /dev/log ] || mount --bind "$6" /dev/log || true; } &&
    mkdir -p "$4" && echo $$ > "$4/cgroup.procs" &&
    exec tmux -S "$5" -f /dev/null new-session -d -s t -n a -x 160 -y 50 "$7"' \
    sh "$T/pam-sudo" "$T/sudoers" "$T/rs" "$SCOPE" "$TMUX_SOCK" "$SYSLOG_SOCK" "$(shell_as "$TUSER")"
tm new-window -d -t t -n b "$(shell_as "$TUSER")"
tm set-option -g history-limit 0 > /dev/null
wait_for a '$' 5; wait_for b '$' 5

PROMPT="Place your finger on the fingerprint reader"
HINT="[Enter Password] press Enter, or type your password"
SUDO_PW="password for $TUSER"
WAITING="Another request was waiting for your finger: "
ASKED="Another request asked for your finger after this one waited "
# What a prompt is told of another uid's request, or a restricted caller of any (no line, no place).
HIDDEN_WAITING="Another request was waiting for the fingerprint reader. Use your password."
HIDDEN_ASKED_RE="Another request asked for the fingerprint reader after this one waited [0-9]+ s\\. Use your password\\."
FINGER="SCAN tu-right-index"

# run WINDOW NAME COMMAND: COMMAND in the window's shell (screen cleared first), its exit status
# to $W/u/NAME.rc; returns once the shell has cleared the screen.
RUNS=0
run() {
    RUNS=$((RUNS + 1))
    rm -f "$W/u/$2.rc"
    tm send-keys -t "t:$1" "clear; echo run-$RUNS; ($3; exit \$?); echo \$? > $W/u/$2.rc" Enter
    wait_for "$1" "run-$RUNS"
}
# ctrl_c WINDOW NAME: Ctrl-C at sudo's password prompt, until NAME's exit status is written.
ctrl_c() { tm send-keys -t "t:$1" C-c; wait_file "$W/u/$2.rc"; }

# arm_sudo WINDOW: `sudo touch $W/u/ran-WINDOW` in window a or b (its exit status to A.rc or
# B.rc, its marker removed first), until its fingerprint prompt is up.
arm_sudo() {
    rm -f "$W/u/ran-$1"
    run "$1" "${1^^}" "sudo touch $W/u/ran-$1"
    wait_for "$1" "$HINT"
}
# armed_then FILE REQUEST...: a sudo armed in window a (HA its helper), then REQUEST (no input)
# while it waits; what REQUEST printed is in FILE and OUT (cases 4a and 4b).
armed_then() {
    local file=$1; shift
    arm_sudo a
    HA=$(helper_pid a)
    "$@" < /dev/null > "$file" 2>&1
    OUT=$(cat "$file")
}
# sudo_screen WINDOW: once the window's sudo shows its password prompt, OUT is its screen.
sudo_screen() { wait_for "$1" "$SUDO_PW"; OUT=$(screen "$1"); }
# touch_finger WINDOW: the enrolled finger's touch, until the window's command has ended.
touch_finger() { python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null; wait_file "$W/u/${1^^}.rc"; }
# logged_re REGEX: a line of $T/syslog matches within 5 s (logged, for a pattern).
logged_re() {
    local deadline=$(($(now_ms) + 5000))
    until grep -qE -- "$1" "$T/syslog"; do [ "$(now_ms)" -lt "$deadline" ] || return 1; sleep 0.02; done
}
# audit_pids SERVICE USER HELPER [FILE]: the pid the module's audit line names as overlapped, for
# the line of USER's SERVICE request whose helper was HELPER, in FILE (default the syslog capture,
# whose datagrams are not separated by newlines).
audit_pids() {
    grep -oE ": user $2, service $1: userFallback, strikes [0-9-]+, helper $3, overlap_with [0-9]+" \
        "${4:-$T/syslog}" | tail -n 1 | sed 's/.*overlap_with //'
}
# badreg MODE UID COMMAND...: COMMAND with a /run/touchauth of that mode and owner (a tmpfs in a
# mount namespace of its own; cases 5).
cat > "$T/badreg" <<'EOS'
#!/bin/sh
mode=$1 owner=$2
shift 2
exec unshare -m --propagation private sh -c 'mount -t tmpfs -o "mode=$0,uid=$1,size=64k" badreg /run/touchauth && shift && exec "$@"' \
    "$mode" "$owner" "$@"
EOS
chmod 0755 "$T/badreg"

# Each case below starts from a user who never failed (fresh_state), both windows at their
# shell's prompt, nothing armed, and leaves them so (its sudo ended, its helpers gone).

two_sudo() {
    fresh_state
    rm -f "$W/u/ran-b"
    arm_sudo a
    HA=$(helper_pid a)
    OUT="helper ${HA:-none}; registry: $(entries)"
    check "(setup) a: the prompt is up, its helper's entry in $REG" eval '[ -n "$HA" ] && [ -f "$REG/$HA" ]'
    OUT=$(stat -c '%a %U' "$REG" "$REG/$HA" 2> /dev/null | tr '\n' ' ')
    check "the registry is root's alone (directory 700, entry 600): $OUT" test "$OUT" = "700 root 600 root "
    OUT=$("$HELPER" status "$TUSER" --config "$CONF" 2>&1)
    check "touchauth status lists the armed request: its line, terminal, wait and pids" \
        grep -qE "^  armed: sudo wants to run as root: touch $W/u/ran-a \(pts/[0-9]+, [0-9]+ s; uid $TUID, pid $HA, host [0-9]+\)$" <<<"$OUT"
    OUT=$("$HELPER" status "$TUSER" --config "$CONF" --json 2>&1)
    check "touchauth status --json too" \
        grep -qE "\"armed\":\[\{\"pid\":$HA,\"host\":[0-9]+,\"uid\":$TUID,\"where\":\"pts/[0-9]+\",\"line\":\"sudo wants to run as root: touch $W/u/ran-a\",\"seconds\":[0-9]+\}\]" <<<"$OUT"
    OUT=$("$HELPER" doctor --config "$CONF" 2>&1)
    check "touchauth doctor says the rule is in force (one armed now)" \
        has "OK   one request: a reader is armed for one request at a time (/run/touchauth root 0700; armed now: 1)"
    run b B "sudo touch $W/u/ran-b"
    wait_for b "$SUDO_PW"
    wait_for a "$SUDO_PW"
    OUT=$(screen b)
    check "b (new) goes to its password and names a's command, terminal and wait" \
        eval 'has "$SUDO_PW" && grep -qE "${WAITING}sudo wants to run as root: touch $W/u/ran-a \\(pts/[0-9]+, [0-9]+ s\\)\\. Use your password\\." <<<"$OUT"'
    check "b never showed the fingerprint prompt" lacks "$PROMPT"
    OUT=$(screen a)
    check "a (armed) goes to its password and names b's command and terminal" \
        eval 'has "$SUDO_PW" && grep -qE "${ASKED}[0-9]+ s: sudo wants to run as root: touch $W/u/ran-b \\(pts/[0-9]+\\)\\. Use your password\\." <<<"$OUT"'
    echo "#   a said: $(screen a | grep -F "$ASKED")"
    echo "#   b said: $(screen b | grep -F "$WAITING")"
    OUT="strikes: $(strikes)"
    check "no strike on disk (a's scan cancelled and refunded, b never charged)" test "$(strikes)" = 0
    for i in $(seq 500); do no_helper_left a && no_helper_left b && [ -z "$(entries)" ] && break; sleep 0.01; done
    OUT="registry: $(entries)"
    check "the sensor closed: no helper left under a or b, the registry empty" \
        eval 'no_helper_left a && no_helper_left b && [ -z "$(entries)" ]'
    check "both logged with both pids (each helper's line names its own and the other's, and the hosts')" \
        eval 'logged_re "overlap: pid [0-9]+ \(host [0-9]+, uid $TUID, pts/[0-9]+: sudo wants to run as root: touch $W/u/ran-b\) not armed: pid $HA \(host [0-9]+, uid $TUID, pts/[0-9]+: sudo wants to run as root: touch $W/u/ran-a\) was armed" &&
              logged_re "overlap: pid $HA \(host [0-9]+, uid $TUID, pts/[0-9]+: sudo wants to run as root: touch $W/u/ran-a\) ended after [0-9]+ s by pid [0-9]+ \(host"'
    for i in $(seq 500); do [ -n "$(audit_pids sudo "$TUSER" "$HA")" ] && break; sleep 0.01; done
    HB=$(audit_pids sudo "$TUSER" "$HA")
    OUT=$(grep -F "service sudo: userFallback" "$T/syslog")
    check "the module's audit lines of both name both pids: a's 'helper $HA, overlap_with ${HB:-?}', b's the other way round" \
        eval '[ -n "$HB" ] && [ "$HB" != "$HA" ] && [ "$(audit_pids sudo "$TUSER" "$HB")" = "$HA" ] &&
              logged_re "overlap: pid $HB \(host [0-9]+, uid $TUID, pts/[0-9]+: sudo wants to run as root: touch $W/u/ran-b\) not armed"'
    OUT=$("$HELPER" status "$TUSER" --config "$CONF" 2>&1)
    check "touchauth status: none armed now" has "  armed: none"
    ctrl_c a A; ctrl_c b B
    check "(control) neither command ran" eval '[ ! -e "$W/u/ran-a" ] && [ ! -e "$W/u/ran-b" ]'
    arm_sudo a
    OUT=$(screen a)
    check "the next sudo alone: the fingerprint prompt, nothing about another request" \
        eval 'has "$PROMPT" && lacks "Another request"'
    touch_finger a
    check "...and the finger runs its command" eval '[ -e "$W/u/ran-a" ] && [ "$(cat "$W/u/A.rc")" = 0 ]'
}
case_ "1. two sudo of one user: the second starts while the first is armed" two_sudo

hidden_sudo() {
    fresh_state
    rm -f "$W/u/pwned" "$W/u/hidden.out" "$W/u/hidden.pid"
    # The attacker's job: script(1) gives sudo a pseudo-terminal of its own, fed by a sleep so its
    # input stays open; in the user's session 37 like everything in these windows.
    run b H "(sleep 600 | script -qfc 'sudo touch $W/u/pwned' /dev/null > $W/u/hidden.out 2>&1 & echo \$! > $W/u/hidden.pid)"
    wait_file "$W/u/hidden.pid"
    HIDDEN=$(cat "$W/u/hidden.pid")
    for i in $(seq 1000); do grep -qF "$PROMPT" "$W/u/hidden.out" 2> /dev/null && [ -n "$(entries)" ] && break; sleep 0.01; done
    OUT="$(cat "$W/u/hidden.out" 2> /dev/null); registry: $(entries)"
    check "(setup) the hidden sudo is armed (its prompt in script's output, its entry in $REG)" \
        eval 'has "$PROMPT" && [ -n "$(entries)" ]'
    run a V "sudo id"
    sudo_screen a
    check "the visible sudo id names the hidden request: touch $W/u/pwned, its terminal and wait" \
        grep -qE "${WAITING}sudo wants to run as root: touch $W/u/pwned \\(pts/[0-9]+, [0-9]+ s\\)" <<<"$OUT"
    check "...and goes to its password, no fingerprint prompt" eval 'has "$SUDO_PW" && lacks "$PROMPT"'
    for i in $(seq 1000); do grep -qF "$SUDO_PW" "$W/u/hidden.out" 2> /dev/null && break; sleep 0.01; done
    OUT=$(cat "$W/u/hidden.out")
    check "the hidden sudo was ended: at its password prompt, naming sudo id" \
        eval 'has "$SUDO_PW" && grep -qE "${ASKED}[0-9]+ s: sudo wants to run as root: id \\(pts/[0-9]+\\)" <<<"$OUT"'
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > "$T/touch.out" 2>&1
    OUT="vsensor: $(cat "$T/touch.out"); registry: $(entries)"
    check "a touch sent after that: nobody listens (no reader armed), the registry empty" \
        eval 'grep -q "nobody listens" "$T/touch.out" && [ -z "$(entries)" ]'
    check "/tmp/pwned never exists (here $W/u/pwned)" test ! -e "$W/u/pwned"
    OUT="strikes: $(strikes)"
    check "no strike on disk" test "$(strikes)" = 0
    ctrl_c a V
    kill -KILL "$HIDDEN" 2> /dev/null
    HIDDEN=""
}
case_ "2. the attack: a background job's hidden sudo waits armed; the user's visible sudo id" hidden_sudo

killed_helper() {
    fresh_state
    arm_sudo a
    HA=$(helper_pid a)
    check "(setup) a armed, its entry in $REG" eval '[ -n "$HA" ] && [ -f "$REG/$HA" ]'
    [ -n "$HA" ] && kill -KILL "$HA"
    wait_for a "$SUDO_PW"
    OUT="registry: $(entries)"
    check "(setup) the killed helper's entry stays behind (nobody removed it)" test -f "$REG/$HA"
    ctrl_c a A
    arm_sudo b
    OUT=$(screen b)
    check "the next prompt arms normally: nothing about another request" eval 'has "$PROMPT" && lacks "Another request"'
    OUT="registry: $(entries)"
    check "...and the stale entry is gone" test ! -e "$REG/$HA"
    touch_finger b
    check "...and the finger runs its command" eval '[ -e "$W/u/ran-b" ] && [ "$(cat "$W/u/B.rc")" = 0 ]'
}
case_ "3. a helper SIGKILLed while armed" killed_helper

reused_pid() {
    fresh_state
    # This shell's pid, with a start time that is not its own: what a helper's entry looks like once
    # its pid went to another process.
    printf 'touchauth-armed 1\npid %s\nstart 1\nhost 1\nuid %s\nsince 1\nwhere pts/99\nline sudo wants to run as root: reused\n' \
        "$$" "$TUID" > "$REG/$$"
    chmod 0600 "$REG/$$"
    arm_sudo b
    OUT=$(screen b)
    check "an entry whose pid another process has now (another start time): the prompt arms, nothing about it" \
        eval 'has "$PROMPT" && lacks "Another request"'
    OUT="registry: $(entries)"
    check "...and that entry is removed (this shell got no SIGTERM: it runs on)" test ! -e "$REG/$$"
    touch_finger b
    check "...and the finger runs its command" eval '[ -e "$W/u/ran-b" ] && [ "$(cat "$W/u/B.rc")" = 0 ]'
}
case_ "3b. an entry whose pid another process has now (a pid reused since its helper died)" reused_pid

other_user() {
    fresh_state
    arm_sudo a
    pam other "$OTHER" "not-the-password"
    check "the other user's request: not authenticated, the password asked (pam_unix)" \
        eval 'lacks "successfully authenticated" && has "Password"'
    check "...it is told only that another request was waiting: not the other user's command, not its terminal" \
        eval 'has "$HIDDEN_WAITING" && lacks "ran-a" && lacks "$WAITING" && ! grep -q "pts/" <<<"$OUT"'
    sudo_screen a
    check "the armed sudo goes to its password, told only that another request asked: not the other user's service, not its display" \
        eval 'has "$SUDO_PW" && grep -qE "$HIDDEN_ASKED_RE" <<<"$OUT" && lacks "the-other-users-login" && lacks "(:0)"'
    ctrl_c a A
    check "(control) the command did not run" test ! -e "$W/u/ran-a"
}
case_ "4. another user's request while one is armed: both to the password" other_user

display_only() {
    fresh_state
    # clients/pamdrive.c under pam_wrapper, no controlling terminal, PAM_TTY unset: what a graphical
    # client that names its X display looks like to the module.
    [ -x "$T/pamdrive" ] || gcc -O2 -Wall -o "$T/pamdrive" "$E2E/clients/pamdrive.c" -lpam
    # (Under pam_wrapper the module's pam_syslog lines go to the client's stderr, "SYSLOG(N): ...")
    # (The same user's: a request of another uid is not named, case 4.)
    armed_then "$T/xdisplay.out" "${WRAPPED[@]}" PAM_WRAPPER_DEBUGLEVEL=2 "$T/pamdrive" -I xdisplay=:71 other "$TUSER" not-the-password auth
    check "the display-only request: not authenticated, names the armed sudo, the password asked" \
        eval 'grep -q "^authenticate: Authentication failure" <<<"$OUT" && grep -qE "^${WAITING}sudo wants to run as root: touch $W/u/ran-a \\(pts/[0-9]+, [0-9]+ s\\)" <<<"$OUT"'
    sudo_screen a
    check "the armed sudo names it by its display: the-other-users-login (:71)" \
        grep -qE "${ASKED}[0-9]+ s: the-other-users-login \\(:71\\)\\. Use your password\\." <<<"$OUT"
    echo "#   the armed sudo said: $(grep -F "$ASKED" <<<"$OUT")"
    for i in $(seq 500); do [ -n "$(audit_pids sudo "$TUSER" "$HA")" ] && break; sleep 0.01; done
    HX=$(audit_pids sudo "$TUSER" "$HA")
    OUT=$(grep -F "userFallback" "$T/xdisplay.out")
    check "both audit lines name both pids: the sudo's 'helper $HA, overlap_with ${HX:-?}', the display request's the other way round" \
        eval '[ -n "$HX" ] && [ "$(audit_pids other "$TUSER" "$HX" "$T/xdisplay.out")" = "$HA" ]'
    ctrl_c a A
    check "(control) the command did not run" test ! -e "$W/u/ran-a"
}
case_ "4a. a request with a display and no terminal (PAM_XDISPLAY only) while a sudo is armed" display_only

# setuid_copy: the setuid copy of the helper, $W/suid/touchauth, and the one config file a setuid
# run reads, /etc/security/touchauth.conf: a copy of the directory with ours in it, mounted over
# it in the run's own namespace (setuid_run).
setuid_copy() {
    rm -rf "$W/suid" "$W/etc-security"
    mkdir -m 0755 "$W/suid"
    cp "$HELPER" "$W/suid/touchauth"
    chmod 4755 "$W/suid/touchauth"
    mkdir -m 0755 "$W/etc-security"
    cp -a /etc/security/. "$W/etc-security/"
    cp -p "$CONF" "$W/etc-security/touchauth.conf"
}
# setuid_run USER REQUEST: the setuid copy run by USER (real uid) with REQUEST on stdin.
setuid_run() {
    unshare -m --propagation private sh -c 'mount --bind "$1" /etc/security &&
        exec setpriv --reuid="$2" --regid="$2" --init-groups "$3" pam-verify < "$4"' sh \
        "$W/etc-security" "$1" "$W/suid/touchauth" "$2"
}

forged_setuid() {
    fresh_state
    # The user runs the setuid copy by hand with a request of their own: an approval line and a
    # service that try to pass for something else. It ends the armed prompt as any request does
    # (the rule), and is named by a plain service and its user only. The user's own (a request of
    # another uid is not named at all: case 4c).
    setuid_copy
    printf 'touchauth-request 1\nuser %s\nservice %s\nfallback none\napprove sudo command root %s\nend\n' \
        "$TUSER" $'login\xe2\x80\xae' 'apt upgrade' > "$T/forged.req"   # (U+202E: right-to-left override)
    armed_then "$T/forged.out" setuid_run "$TUSER" "$T/forged.req"
    check "the setuid helper (real uid $TUSER) finds the armed sudo: told only that a request was waiting (a restricted caller), the password" \
        eval 'grep -qxF "info $HIDDEN_WAITING" <<<"$OUT" && lacks "ran-a" && has "result userFallback"'
    sudo_screen a
    check "...the armed sudo goes to its password, naming it by its user only (its service, with a U+202E, shown as '?')" \
        grep -qE "${ASKED}[0-9]+ s: \\? \\($TUSER\\) \\(" <<<"$OUT"
    check "...never the forged approval line" lacks "apt upgrade"
    echo "#   the armed sudo said: $(grep -F "$ASKED" <<<"$OUT")"
    ctrl_c a A
}
case_ "4b. a setuid helper started by a user (a screen locker's, decision 0012), its request forged" forged_setuid

another_users_secret() {
    fresh_state
    # Another user runs the setuid helper by hand, a request naming themself, while the user's sudo
    # with a secret on its command line is armed: they learn only that a request was waiting.
    setuid_copy
    printf 'touchauth-request 1\nuser %s\nservice login\nfallback none\nend\n' "$OTHER" > "$T/own.req"
    rm -f "$W/u/ran-a"
    run a A "sudo sh -c 'touch $W/u/ran-a # token=hunter2-s3cret'"
    wait_for a "$HINT"
    setuid_run "$OTHER" "$T/own.req" < /dev/null > "$T/own.out" 2>&1
    OUT=$(cat "$T/own.out")
    check "another user's setuid helper, its own request, while a sudo with a secret is armed: the password, told only that a request was waiting" \
        eval 'has "result userFallback" && grep -qxF "info $HIDDEN_WAITING" <<<"$OUT"'
    check "...its stdout never holds the sudo's command (no hunter2-s3cret, no ran-a), nor its terminal" \
        eval 'lacks "hunter2-s3cret" && lacks "ran-a" && ! grep -q "pts/" <<<"$OUT"'
    sudo_screen a
    check "...the armed sudo goes to its password, told only that another request asked (not the other user's service or name)" \
        eval 'grep -qE "$HIDDEN_ASKED_RE" <<<"$OUT" && lacks "($OTHER)"'
    check "...the log (LOG_AUTHPRIV, root's) keeps both in full: the sudo's command and the other's uid" \
        logged_re "overlap: .*hunter2-s3cret.* by pid [0-9]+ \\(host [0-9]+, uid $(id -u "$OTHER"), "
    ctrl_c a A
    check "(control) the command did not run" test ! -e "$W/u/ran-a"
}
case_ "4c. another user's setuid helper while a sudo with a secret is armed: told nothing of it" another_users_secret

# bad_registry MODE UID WHAT: a registry directory of that mode and owner (WHAT: which), not
# root's alone: no prompt arms.
bad_registry() {
    fresh_state
    PAM_RUNNER="$T/badreg $1 $2" pam other "$OTHER" "not-the-password" "SCAN ot-right-index"
    check "$3: no success with the right finger, the password asked" \
        eval 'lacks "successfully authenticated" && has "Password"'
    check "...the fingerprint prompt never shown, 'not available' instead" \
        eval 'lacks "$PROMPT" && has "The fingerprint reader is not available"'
    OUT=$("$T/badreg" "$1" "$2" "$HELPER" doctor --config "$CONF" 2>&1)
    check "...touchauth doctor FAILs the rule there (no prompt arms until it is fixed)" \
        eval 'grep -q "^FAIL one request: .*no prompt arms until it is fixed" <<<"$OUT"'
}
case_ "5. a registry directory open to others (0755): no prompt arms" \
    bad_registry 0755 0 "a registry directory open to others (0755)"
case_ "5. a registry directory owned by a user ($TUSER, 0700): no prompt arms" \
    bad_registry 0700 "$TUID" "a registry directory owned by a user ($TUSER, 0700)"

lock_held() {
    fresh_state
    # A process of the test holds the flock the helpers take for every look at the registry; a
    # prompt waits for it (2 s) and then goes to the password, its reader never opened.
    rm -f "$T/held"
    python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); print("held", flush=True); time.sleep(600)' "$REG/lock" > "$T/held" &
    local holder=$!
    wait_file "$T/held"
    # Stopped inside it, as a user can stop a setuid helper of theirs (SECURITY.md#user-against-user).
    kill -STOP "$holder"
    pam other "$OTHER" "not-the-password" "SCAN ot-right-index"
    local held_took=$SECONDS_TAKEN
    kill -KILL "$holder"; wait "$holder" 2> /dev/null
    check "the lock held by another: no success with the right finger, the password asked" \
        eval 'lacks "successfully authenticated" && has "Password"'
    check "...the fingerprint prompt never shown, 'not available' instead" \
        eval 'lacks "$PROMPT" && has "The fingerprint reader is not available"'
    pam other "$OTHER" "not-the-password" "SCAN ot-right-index"
    echo "#   pamtester while a stopped process held the lock: the password after $held_took s (the 2 s bound); once it was gone, the finger after $SECONDS_TAKEN s"
    check "...once the holder is gone, the next prompt gets the finger (the harm lasts as long as the hold)" \
        eval 'has "successfully authenticated" && has "$PROMPT"'
}
case_ "5b. the registry's lock held by another (a holder stuck inside it): no prompt arms without it" lock_held

eight_at_once() {
    fresh_state
    # Each helper straight from a request (as the module sends it), with a sensor of its own, all
    # released together; under the registry's lock each either arms alone or ends whatever is armed,
    # so once they settle at most one still waits for a finger, and the others said why.
    rm -f "$T/go" "$T"/par*.out
    local pids=() i e ended
    for i in $(seq 8); do
        write_config "$T/par$i.conf" "helper=$HELPER" "state_dir=$STATE_DIR" "virtual_device=$T/par$i.sock" \
            "lockout_threshold=1000" "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no" "timeout=20"
        sed -i "/^virtual_device = $(printf '%s' "$SOCK" | sed 's|/|\\/|g')\$/d" "$T/par$i.conf"
        ( while [ ! -e "$T/go" ]; do sleep 0.001; done
          printf 'touchauth-request 1\nuser %s\nservice par%s\nfallback none\narg config=%s\nend\n' "$TUSER" "$i" "$T/par$i.conf" |
              exec "$HELPER" pam-verify > "$T/par$i.out" 2>&1 ) &
        pids+=($!)
    done
    touch "$T/go"
    for i in $(seq 1000); do [ "$(waiting)" -le 1 ] && break; sleep 0.01; done
    sleep 0.5   # (a second helper still armed would show here: none of its own events comes to wait for)
    OUT=$(for i in $(seq 8); do echo "== par$i"; cat "$T/par$i.out"; done; echo "registry: $(entries)")
    check "eight at once: at most one still waits for a finger ($(waiting) waiting)" test "$(waiting)" -le 1
    check "...and the registry counts at most one" test "$(entries | wc -w)" -le 1
    ended=0; for i in $(seq 8); do grep -q '^info Another request' "$T/par$i.out" && ended=$((ended + 1)); done
    check "...every other one said why it went to the password ($ended of 8)" test "$ended" -ge 7
    for e in $(entries); do case $e in *[!0-9]*) ;; *) kill -TERM "$e" ;; esac; done  # (the helpers' pids)
    wait "${pids[@]}" 2> /dev/null
    for i in $(seq 500); do [ -z "$(entries)" ] && break; sleep 0.01; done
    OUT="registry: $(entries)"
    check "(cleanup) the registry is empty once they are gone" test -z "$(entries)"
}
waiting() { local n=0 i; for i in $(seq 8); do grep -q '^result ' "$T/par$i.out" 2> /dev/null || n=$((n + 1)); done; echo $n; }
case_ "6. eight prompts started at the same instant: at most one is armed at any time" eight_at_once

summary
