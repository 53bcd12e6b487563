#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Network logins through a real OpenSSH sshd (issue 11): sshd runs on loopback only, inside a
# private mount namespace whose /etc/pam.d/sshd is our test stack bind-mounted over the real one
# (never edited; the machine's own sshd, if any, is never touched), with its own config, host
# key, log and authorized_keys in temp dirs. The test user's enrolled finger touches the virtual
# sensor the whole time a wrong password is tried: the module must never arm the sensor for a
# network login (PAM_RHOST 127.0.0.1 or ::1, service sshd), so the login must fail. And a
# lockout may only be lifted by a password that succeeded: sshd calls pam_acct_mgmt on the
# handle of a failed password once a key is accepted, which must clear nothing.
#
# The test user's shell is nologin: a login that gets in runs nologin and the client exits 1,
# so sshd's own log ("Accepted password for", "Failed password for", ...) is what is judged.
# Proof that the sensor was never armed: the virtual driver's socket file appears only when the
# helper opens the sensor (fp_device_open), and the toucher below records whether it ever saw
# the file or ever got a connection through.
#
# Run against another build: MODULE=/path/pam_touchauth.so HELPER=/path/touchauth bash sshd.sh
source "$(dirname "$0")/../../scripts/lib.sh"

ensure_packages_no_start openssh-server openssh-client || { echo "cannot install openssh-server/openssh-client"; echo "0 passed, 1 failed"; exit 1; }
# The suite runs in a network namespace of its own (the packages are in by now): only lo, up, so
# 127.0.0.1 and ::1 are there on every machine (one without ::1 skipped the ::1 cases), and the
# ports are free whatever else runs. (python, not ip: iproute2 may be missing; SIOCSIFFLAGS IFF_UP.)
if [ -z "${TOUCHAUTH_SSHD_NETNS:-}" ]; then
    exec env TOUCHAUTH_SSHD_NETNS=1 unshare -n -- python3 -c '
import fcntl, os, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH22x", fcntl.ioctl(s, 0x8913, struct.pack("16sH22x", b"lo", 0)))[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))
os.execvp("bash", ["bash"] + sys.argv[1:])' "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"

for tool in /usr/sbin/sshd ssh ssh-keygen unshare setsid socat python3; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
[ -f /etc/pam.d/sshd ] || { echo "no /etc/pam.d/sshd to mount over"; echo "0 passed, 1 failed"; exit 1; }
PAM_SSHD_SUM=$(sha256sum < /etc/pam.d/sshd)

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
CONF="$T/touchauth.conf"  # enroll() reads this one too
STATE="$T/state"
mkdir -m 0700 "$STATE"
# Issue 3's trust rules off (timeout short): on a build that would arm the sensor for ssh, it
# really is armed, and a right password without a touch waits 5 s at most, not 30.
write_config "$CONF" "helper=$HELPER" "state_dir=$STATE" "timeout=5" "password_after_boot=no" \
    "password_max_age=0" "password_after_enroll_change=no"
enroll "$TUSER" right-index-finger tu-ri || { cat "$T/enroll.out"; echo "0 passed, 1 failed"; exit 1; }
FINGER=tu-ri

# W: what the test user's side of sshd reads (authorized_keys is read as the user; $T is 0700).
W=$(mktemp -d /tmp/touchauth-sshd.XXXXXX)
chmod 0755 "$W"
SSHD_PID=""
TOUCHER=""
MADE_RUN_SSHD=""
cleanup() {
    [ -n "$TOUCHER" ] && kill "$TOUCHER" 2>/dev/null
    # $! is sshd itself (setsid, unshare and sh exec); its PidFile says the same.
    local pid
    for pid in $SSHD_PID $(cat "$T/sshd.pid" 2>/dev/null); do
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    syslog_stop
    [ -n "$MADE_RUN_SSHD" ] && rmdir /run/sshd 2>/dev/null
    rm -rf "$T" "$W"
}
trap cleanup EXIT

# Two free ports on both loopback addresses (the second one's connections get MaxAuthTries 2).
OUT=$(cat /proc/net/if_inet6 2>&1)
check "(setup) ::1 on lo in the suite's network namespace" grep -q '^0\{31\}1 .* lo$' /proc/net/if_inet6
# (python, not ss: iproute2 may be missing on a minimal machine)
PORTS=$(python3 - <<'EOF'
import socket, sys
free = []
for port in range(2299, 2400):
    try:
        for family, addr in [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")]:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((addr, port))
        free.append(port)
        if len(free) == 2:
            break
    except OSError:
        pass
print(*free)
EOF
)
read -r PORT PORT2 <<< "$PORTS"
[ -n "${PORT2:-}" ] || { echo "no two free ports in 2299-2399"; echo "0 passed, 1 failed"; exit 1; }

# sshd's privilege separation directory (the service's tmpfiles make it; nothing here does).
if [ ! -d /run/sshd ]; then mkdir -m 0755 /run/sshd && MADE_RUN_SSHD=1; fi
ssh-keygen -q -t ed25519 -N '' -C touchauth-e2e-host -f "$T/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -C touchauth-e2e-user -f "$T/user_ed25519"
cp "$T/user_ed25519.pub" "$W/authorized_keys"
chmod 0644 "$W/authorized_keys"
SSHD_LOG="$T/sshd.log"
: > "$SSHD_LOG"
{
    echo "Port $PORT"
    echo "Port $PORT2"
    echo "ListenAddress 127.0.0.1"
    echo "ListenAddress ::1"
    echo "HostKey $T/host_ed25519"
    echo "PidFile $T/sshd.pid"
    echo "LogLevel DEBUG1"
    echo "UsePAM yes"
    echo "PasswordAuthentication yes"
    echo "KbdInteractiveAuthentication yes"
    echo "PubkeyAuthentication yes"
    echo "AuthorizedKeysFile $W/authorized_keys"
    echo "AuthorizedPrincipalsFile none"
    echo "StrictModes no"
    echo "PermitRootLogin no"
    echo "AllowUsers $TUSER"
    echo "UseDNS no"
    echo "MaxAuthTries 6"
    echo "LoginGraceTime 30"
    echo "PermitTTY no"
    echo "X11Forwarding no"
    echo "AllowTcpForwarding no"
    echo "AllowAgentForwarding no"
    echo "PrintMotd no"
    echo "PrintLastLog no"
    # The second port: two attempts only (part e). Match blocks come last.
    echo "Match LocalPort $PORT2"
    echo "    MaxAuthTries 2"
} > "$T/sshd_config"
chmod 0600 "$T/sshd_config"
# OpenSSH 9.8 and later (Debian 13's 10.0) penalise a source address for failed logins
# (PerSourcePenalties): this suite fails logins from 127.0.0.1 on purpose, many times, and
# sshd then dropped a connection of part e ("penalty: failed authentication"; once in two
# whole runs on 13). Off where sshd knows the option (Debian 12's 9.2 does not).
{ echo "PerSourcePenalties no"; cat "$T/sshd_config"; } > "$T/sshd_config.try"
if /usr/sbin/sshd -t -f "$T/sshd_config.try" > /dev/null 2>&1; then mv "$T/sshd_config.try" "$T/sshd_config"; fi
chmod 0600 "$T/sshd_config"

# The stack of the issue: the fingerprint, the password (pam_unix), requisite pam_deny, then
# the authsucc line that only a succeeded password reaches; the OLD account line must clear
# nothing any more.
ARGS="config=$CONF helper=$HELPER debug"
printf '%s\n' \
    "auth [success=done abort=die default=ignore] $MODULE $ARGS" \
    "auth [success=1 default=ignore] pam_unix.so nodelay" \
    "auth requisite pam_deny.so" \
    "auth required pam_permit.so" \
    "auth optional $MODULE authsucc $ARGS" \
    "account optional $MODULE config=$CONF helper=$HELPER" \
    "account required pam_permit.so" \
    "session required pam_permit.so" > "$T/pam-sshd"
chmod 0644 "$T/pam-sshd"

printf '#!/bin/sh\necho "$*" >> "%s"\ncat "%s"\n' "$T/askpass.log" "$T/pw" > "$T/askpass"
chmod 0700 "$T/askpass"
# askpass-seq: the Nth prompt of a connection gets line N of the password file (part e).
printf '#!/bin/sh\necho "$*" >> "%s"\nn=$(wc -l < "%s")\nsed -n "${n}p" "%s"\n' \
    "$T/askpass.log" "$T/askpass.log" "$T/pw" > "$T/askpass-seq"
chmod 0700 "$T/askpass-seq"

# The toucher: every ~50 ms, if anyone listens on the sensor's socket, send `SCAN <id>` (the
# enrolled finger touches). Records whether the socket file was ever there and how many scans
# got through. Bounded by its own time limit.
cat > "$T/toucher.py" <<'EOF'
import os, socket, sys, time
path, command, out, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
seen = sent = 0
def record():
    with open(out, "w") as f:
        f.write(f"socket_seen {seen}\nscans_sent {sent}\n")
record()
end = time.monotonic() + limit
while time.monotonic() < end:
    if os.path.exists(path) and not seen:
        seen = 1
        record()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        s.sendall(command.encode())
        s.settimeout(0.5)
        try:
            while s.recv(1024):
                pass
        except (socket.timeout, ConnectionResetError):
            pass
        sent += 1
        record()
    except OSError:
        pass
    finally:
        s.close()
    time.sleep(0.05)
EOF

syslog_start
echo "# sshd on port $PORT (127.0.0.1 and ::1), module $MODULE"
OUT=$(/usr/sbin/sshd -t -f "$T/sshd_config" 2>&1)
check "(setup) sshd accepts the test config" test $? -eq 0
# The namespace: our stack over /etc/pam.d/sshd (and our syslog socket over /dev/log where the
# machine has one); sshd is the namespace's only process, so killing it ends the mounts.
setsid unshare -m sh -c 'mount --bind "$1" /etc/pam.d/sshd || exit 1
    if [ "$2" != /dev/log ]; then mount --bind "$2" /dev/log || exit 1; fi
    exec /usr/sbin/sshd -D -f "$3" -E "$4"' sh "$T/pam-sshd" "$SYSLOG_SOCK" "$T/sshd_config" "$SSHD_LOG" \
    < /dev/null > "$T/sshd.out" 2>&1 &
SSHD_PID=$!
for _ in $(seq 100); do grep -q "Server listening on 127.0.0.1 port $PORT" "$SSHD_LOG" && break; sleep 0.1; done
OUT=$(cat "$SSHD_LOG" "$T/sshd.out")
check "(setup) sshd listens on 127.0.0.1:$PORT" has "Server listening on 127.0.0.1 port $PORT"
check "(setup) sshd listens on [::1]:$PORT" has "Server listening on ::1 port $PORT"
check "(setup) the machine's /etc/pam.d/sshd is untouched (the stack is only mounted in sshd's namespace)" \
    test "$(sha256sum < /etc/pam.d/sshd)" = "$PAM_SSHD_SUM"

# ssh_try ADDRESS METHODS PASSWORD [touch]: one ssh connection as the test user, the password
# given by SSH_ASKPASS; with `touch` the enrolled finger touches the sensor throughout. Sets RC
# (the client's), LOG (sshd's lines of this connection), OUT (everything, for a failing check).
ssh_try() {
    local addr=$1 methods=$2 pw=$3 touch=${4:-} from
    printf '%s\n' "$pw" > "$T/pw"
    : > "$T/askpass.log"; : > "$T/syslog"
    rm -f "$SOCK" "$T/touch.out"
    from=$(($(wc -l < "$SSHD_LOG") + 1))
    TOUCHER=""
    if [ -n "$touch" ]; then
        python3 "$T/toucher.py" "$SOCK" "SCAN $FINGER" "$T/touch.out" 40 & TOUCHER=$!
        # touching before sshd's PAM runs: wait for the toucher's first record (bounded)
        for _ in $(seq 100); do [ -s "$T/touch.out" ] && break; sleep 0.02; done
    fi
    timeout 30 setsid -w env -u SSH_AUTH_SOCK SSH_ASKPASS="${SSH_ASKPASS_SCRIPT:-$T/askpass}" SSH_ASKPASS_REQUIRE=force \
        DISPLAY= ssh -F /dev/null -p "${SSH_PORT:-$PORT}" -T -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -o GlobalKnownHostsFile=/dev/null \
        -o PreferredAuthentications="$methods" -o NumberOfPasswordPrompts="${SSH_PROMPTS:-1}" \
        -o IdentitiesOnly=yes -o IdentityFile="$T/user_ed25519" -o IdentityAgent=none \
        -o ConnectTimeout=10 -o LogLevel=ERROR "$TUSER@$addr" true < /dev/null > "$T/ssh.out" 2>&1
    RC=$?
    # sshd's lines for this connection end with its close; wait for it (bounded).
    for _ in $(seq 50); do
        tail -n +"$from" "$SSHD_LOG" | grep -qE "Connection closed|Disconnected from|Received disconnect|Connection reset|session closed" && break
        sleep 0.1
    done
    if [ -n "$TOUCHER" ]; then kill "$TOUCHER" 2>/dev/null; wait "$TOUCHER" 2>/dev/null; TOUCHER=""; fi
    LOG=$(tail -n +"$from" "$SSHD_LOG")
    OUT=$(echo "$LOG" | grep -vE "debug1: (channel|client_input|server_input|session_|Received SIGCHLD|do_cleanup|monitor_read_log|PAM: (setting|initializing))" | tail -n 40
          echo "--- ssh client (rc $RC):"; cat "$T/ssh.out"
          echo "--- askpass prompts:"; cat "$T/askpass.log"
          echo "--- syslog:"; syslog_lines
          [ -f "$T/touch.out" ] && { echo "--- toucher:"; cat "$T/touch.out"; })
    [ -n "${SSHD_E2E_VERBOSE:-}" ] && echo "$OUT" | sed 's/^/       : /'
    return 0
}
in_log() { grep -qF -- "$1" <<<"$LOG"; }
not_in_log() { ! grep -qF -- "$1" <<<"$LOG"; }
never_armed() { ! [ -e "$SOCK" ] && grep -q "^socket_seen 0$" "$T/touch.out" && grep -q "^scans_sent 0$" "$T/touch.out"; }
asked_password() { test -s "$T/askpass.log"; }
# The syslog datagrams, one a line (socat writes them back to back, each starting "<PRI>").
syslog_lines() { sed 's/<[0-9]\{1,3\}>/\n&/g' "$T/syslog"; }
module_says_remote() { syslog_lines | grep -F "pam_touchauth(sshd:auth)" | grep -qi "remote"; }
status_json() { "$HELPER" status "$TUSER" --json --config "$CONF"; }
with_state() {  # OUT, then the state file and status --json: what a failed check shows
    OUT="$OUT
    --- state:
    $(cat "$STATE/$TUID"; status_json)"
}
json_has() { status_json | grep -qF -- "$1"; }
# the module's debug line for a recorded password, from the auth phase's authsucc line
recorded_by_auth() {
    syslog_lines | grep -qF "pam_touchauth(sshd:auth): user $TUSER: password recorded" &&
        ! syslog_lines | grep -F "pam_touchauth(sshd:account)" | grep -q "password recorded"
}
BOOT=$(cat /proc/sys/kernel/random/boot_id)
# (set_state, field: tests/e2e/kit/state.sh.) Each case writes the state it starts from
# (set_state 0 -: a password now, this boot; issue 3's rules are off anyway; or lock, five
# strikes): the sensor is the first thing asked. A filtered run (scripts/test.sh sshd:REGEX)
# runs only the cases it picks, on the one sshd the common setup started.

# password_checks NAME ADDRESS: checks a and b, one address.
password_checks() {
    local name=$1 addr=$2
    set_state 0 -
    ssh_try "$addr" password "wrong password" touch
    check "$name: a wrong password while the enrolled finger touches is not accepted" \
        not_in_log "Accepted password for $TUSER from $addr"
    check "$name: ...sshd logs it as a failed password" in_log "Failed password for $TUSER from $addr"
    check "$name: ...the password was asked for" asked_password
    check "$name: ...the sensor was never armed (no socket, no scan got through)" never_armed
    check "$name: ...the module's debug line says remote" module_says_remote
    ssh_try "$addr" password "$TPASS"
    check "$name: the right password gets in (the test stack ran)" \
        in_log "Accepted password for $TUSER from $addr"
}
a_password_127() { password_checks "a. ssh password from 127.0.0.1" 127.0.0.1; }
case_ "a. password login from 127.0.0.1" a_password_127
b_password_ip6() { password_checks "b. ssh password from ::1" ::1; }
case_ "b. password login from ::1" b_password_ip6

c_keyboard_interactive() {
    set_state 0 -
    ssh_try 127.0.0.1 keyboard-interactive "wrong password" touch
    check "c. ssh keyboard-interactive: a wrong password while the enrolled finger touches is not accepted" \
        not_in_log "Accepted keyboard-interactive/pam for $TUSER"
    check "c. ...sshd logs it as failed" in_log "Failed keyboard-interactive/pam for $TUSER from 127.0.0.1"
    check "c. ...the password was asked for" asked_password
    check "c. ...the sensor was never armed (no socket, no scan got through)" never_armed
    check "c. ...the module's debug line says remote" module_says_remote
    ssh_try 127.0.0.1 keyboard-interactive "$TPASS"
    check "c. the right password gets in by keyboard-interactive" \
        in_log "Accepted keyboard-interactive/pam for $TUSER from 127.0.0.1"
}
case_ "c. keyboard-interactive (the PAM conversation)" c_keyboard_interactive

# d. a lockout survives a failed password followed by an accepted key
# lock LOCKED_AT: five strikes, locked (as five wrong fingers leave it).
lock() { set_state 5 "$1" "$(date +%s)" "$BOOT" -; }
still_locked() {  # the same five strikes and the same locked_at as written
    json_has '"locked":true' && [ "$(field strikes)" = 5 ] && [ "$(field locked_at)" = "$1" ]
}
lifted() { json_has '"locked":false' && [ "$(field strikes)" = 0 ]; }
LOCKED_AT=$(($(date +%s) - 60))
d_password_publickey() {
    lock "$LOCKED_AT"
    OUT=$(status_json)
    check "(setup) d. the user is locked out to begin with (touchauth status)" has '"locked":true'
    ssh_try 127.0.0.1 password,publickey "wrong password"
    check "d. password,publickey: the wrong password fails first" in_log "Failed password for $TUSER from 127.0.0.1"
    check "d. ...then the key is accepted" in_log "Accepted publickey for $TUSER from 127.0.0.1"
    with_state
    check "d. ...and the user is STILL locked, strikes and locked_at unchanged (acct_mgmt on that handle clears nothing)" \
        still_locked "$LOCKED_AT"
}
case_ "d. a lockout survives a failed password followed by an accepted key: password,publickey" d_password_publickey

# The same with the PAM conversation: sshd runs keyboard-interactive's pam_authenticate in a
# forked child, so the module's pam_set_data there never reaches the monitor's handle, on
# which pam_acct_mgmt runs after the key.
d_kbd_publickey() {
    lock "$LOCKED_AT"
    ssh_try 127.0.0.1 keyboard-interactive,publickey "wrong password"
    check "d. keyboard-interactive,publickey: the wrong password fails first" \
        in_log "Failed keyboard-interactive/pam for $TUSER from 127.0.0.1"
    check "d. ...then the key is accepted" in_log "Accepted publickey for $TUSER from 127.0.0.1"
    with_state
    check "d. ...and the user is STILL locked, strikes unchanged" still_locked "$LOCKED_AT"
}
case_ "d. a lockout survives a failed password followed by an accepted key: keyboard-interactive,publickey" d_kbd_publickey

d_key_alone() {
    lock "$LOCKED_AT"
    ssh_try 127.0.0.1 publickey ""
    check "d. (control) a key alone is accepted" in_log "Accepted publickey for $TUSER from 127.0.0.1"
    with_state
    check "d. (control) ...and leaves the lockout as it was" still_locked "$LOCKED_AT"
}
case_ "d. (control) a key alone leaves the lockout as it was" d_key_alone

# The legitimate path. The design (SPEC point 2, like pam_faillock's authsucc): any password
# that succeeded lifts the lockout, wherever it was typed, ssh included: the person who knows
# the password is the account's owner as far as PAM can tell, and a remote login is refused the
# fingerprint anyway (it cannot use, or unlock, anything by being remote). So this asserts that
# the lockout IS lifted (strikes 0), by the authsucc line that only a succeeded password reaches.
d_password_lifts() {
    lock "$LOCKED_AT"
    ssh_try 127.0.0.1 password "$TPASS"
    check "d. the right password over ssh gets in while locked" in_log "Accepted password for $TUSER from 127.0.0.1"
    with_state
    check "d. ...and lifts the lockout (a password succeeded: the authsucc line)" lifted
    check "d. ...recorded in the auth phase (authsucc), not by the account line" recorded_by_auth
}
case_ "d. the right password over ssh while locked lifts the lockout" d_password_lifts

d_kbd_lifts() {
    lock "$LOCKED_AT"
    ssh_try 127.0.0.1 keyboard-interactive "$TPASS"
    check "d. the right password by keyboard-interactive gets in while locked" \
        in_log "Accepted keyboard-interactive/pam for $TUSER from 127.0.0.1"
    with_state
    check "d. ...and lifts the lockout too (authsucc runs in sshd's PAM child, as root)" lifted
    check "d. ...recorded in the auth phase (authsucc), not by the account line" recorded_by_auth
}
case_ "d. the right password by keyboard-interactive while locked lifts the lockout" d_kbd_lifts

# e. MaxAuthTries 2 (port $PORT2): a PAM_MAXTRIES from us never costs an sshd attempt
# Over ssh the fingerprint is never offered (docs/POLICY.md#a-network-login-is-never-offered-it), so the module returns no PAM_MAXTRIES there,
# and under its stack line (default=ignore) a PAM_MAXTRIES would not reach sshd anyway. sshd
# turns password and keyboard-interactive authentication off for the connection once PAM says
# PAM_MAXTRIES (auth-pam.c, sshpam_set_maxtries_reached): the controls below show that with a
# fake module that returns it once.
# two_tries METHOD PASSWORDS: one connection to the MaxAuthTries-2 port, the client willing to
# try three times; prompt N is answered with line N of PASSWORDS; the finger touches throughout.
two_tries() {
    SSH_PORT=$PORT2 SSH_PROMPTS=3 SSH_ASKPASS_SCRIPT=$T/askpass-seq ssh_try 127.0.0.1 "$1" "$2" touch
}
asked_times() { [ "$(wc -l < "$T/askpass.log")" = "$1" ]; }
WRONG_RIGHT="wrong password"$'\n'"$TPASS"
e_password_locked() {
    lock "$LOCKED_AT"
    two_tries password "$WRONG_RIGHT"
    check "e. password, locked user, the finger line first: the wrong password fails (attempt 1 of 2)" \
        in_log "Failed password for $TUSER from 127.0.0.1 port"
    check "e. ...the right password on the last allowed attempt gets in" in_log "Accepted password for $TUSER from 127.0.0.1"
    check "e. ...asked exactly twice" asked_times 2
    check "e. ...the sensor was never armed" never_armed
}
case_ "e. MaxAuthTries 2: password, a locked user: wrong, then right on the last allowed attempt" e_password_locked

e_kbd_locked() {
    lock "$LOCKED_AT"
    two_tries keyboard-interactive "$WRONG_RIGHT"
    check "e. keyboard-interactive, locked user: the wrong password fails (attempt 1 of 2)" \
        in_log "Failed keyboard-interactive/pam for $TUSER from 127.0.0.1"
    check "e. ...the right password on the last allowed attempt gets in" \
        in_log "Accepted keyboard-interactive/pam for $TUSER from 127.0.0.1"
    check "e. ...the sensor was never armed" never_armed
}
case_ "e. MaxAuthTries 2: keyboard-interactive, a locked user: wrong, then right on the last allowed attempt" e_kbd_locked

e_limit_real() {
    set_state 0 -
    two_tries password "wrong password"$'\n'"wrong again"$'\n'"$TPASS"
    check "e. (control) the limit is real: two wrong passwords end it, the third (right) one is never asked" \
        eval 'in_log "maximum authentication attempts exceeded for $TUSER" && asked_times 2 && not_in_log "Accepted password for $TUSER"'
}
case_ "e. (control) MaxAuthTries 2: the limit is real" e_limit_real

# The controls with a module that says PAM_MAXTRIES on the connection's first attempt (a marker
# file; PAM_IGNORE after), in front of the same stack: $T/pam-sshd is rewritten in place (the
# bind mount keeps its inode) and put back afterwards.
cat > "$T/pam_maxtries_once.c" <<'CEOF'
#include <fcntl.h>
#include <security/pam_modules.h>
#include <unistd.h>
PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	int fd = argc > 0 ? open(argv[0], O_WRONLY | O_CREAT | O_EXCL, 0600) : -1;

	(void)pamh;
	(void)flags;
	if (fd < 0)
		return PAM_IGNORE;
	close(fd);
	return PAM_MAXTRIES;
}
PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_IGNORE;
}
CEOF
gcc -O2 -Wall -Wextra -shared -fPIC -o "$T/pam_maxtries_once.so" "$T/pam_maxtries_once.c"
cp "$T/pam-sshd" "$T/pam-sshd.ours"
fake_first() {  # fake_first CONTROL: the fake module's line, then our stack
    { echo "auth $1 $T/pam_maxtries_once.so $T/maxtries.once"; cat "$T/pam-sshd.ours"; } > "$T/pam-sshd"
    rm -f "$T/maxtries.once"
}
# (each control case puts our stack back at its end; the last case writes it itself)
e_fake_swallowed() {
    set_state 0 -
    fake_first "[success=done abort=die default=ignore]"
    two_tries password "$WRONG_RIGHT"
    check "e. (control) a PAM_MAXTRIES under our line's control (default=ignore) is swallowed: wrong, then right gets in" \
        eval 'test -e "$T/maxtries.once" && in_log "Accepted password for $TUSER from 127.0.0.1"'
    cat "$T/pam-sshd.ours" > "$T/pam-sshd"
}
case_ "e. (control) a PAM_MAXTRIES under our line's control (default=ignore) is swallowed" e_fake_swallowed

e_fake_required() {
    set_state 0 -
    fake_first required
    two_tries password "$TPASS"$'\n'"$TPASS"
    check "e. (control) a PAM_MAXTRIES that reaches sshd (required) costs the user the last attempt: the right password twice, never in" \
        eval 'test -e "$T/maxtries.once" && not_in_log "Accepted password for $TUSER"'
    cat "$T/pam-sshd.ours" > "$T/pam-sshd"
}
case_ "e. (control) a PAM_MAXTRIES that reaches sshd (required) costs the user the last attempt" e_fake_required

e_fake_required_kbd() {
    set_state 0 -
    fake_first required
    two_tries keyboard-interactive "$TPASS"$'\n'"$TPASS"
    check "e. (control) ...by keyboard-interactive too" \
        eval 'test -e "$T/maxtries.once" && not_in_log "Accepted keyboard-interactive/pam for $TUSER"'
    cat "$T/pam-sshd.ours" > "$T/pam-sshd"
}
case_ "e. (control) a PAM_MAXTRIES that reaches sshd (required), by keyboard-interactive" e_fake_required_kbd

e_ours_back() {
    cat "$T/pam-sshd.ours" > "$T/pam-sshd"
    set_state 0 -
    two_tries password "$WRONG_RIGHT"
    check "e. (our stack back) wrong, then right gets in" in_log "Accepted password for $TUSER from 127.0.0.1"
}
case_ "e. (our stack back) wrong, then right gets in" e_ours_back

OUT=$(cat "$T/sshd.out")
check "sshd is still running (no crash)" kill -0 "$SSHD_PID"
check "(cleanup) the machine's /etc/pam.d/sshd is still untouched" test "$(sha256sum < /etc/pam.d/sshd)" = "$PAM_SSHD_SUM"
summary
