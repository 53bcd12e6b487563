#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whose touch is it (issue 11, docs/POLICY.md#presence): the fingerprint is offered only when a person at
# this machine can see and answer the prompt. Proved with real components: pamtester under
# pam_wrapper, real `su` (util-linux, setuid) with a bind-mounted /etc/pam.d/su, libfprint's
# virtual sensor, and a fake systemd-logind state built the way sd-login reads it (a private
# mount namespace whose /run/systemd is our directory, the process moved into a
# session-N.scope cgroup).
#
# "Offered" = the finger prompt is shown, the sensor is armed and a touch of the enrolled finger
# authenticates. "Not offered" = PAM_AUTHINFO_UNAVAIL, no finger prompt, the sensor never armed
# (the virtual driver's socket appears from fp_device_open on, so no socket = never opened), and
# the touch queued for the sensor authenticates nobody. Every not-offered case has a touch
# queued: on a module that offers there, the person at the machine lets the caller in.
source "$(dirname "$0")/../../scripts/lib.sh"
ensure_packages pamtester libpam-wrapper libpam-modules libsystemd0 python3 tmux util-linux
source "$(dirname "$0")/lib.sh"
STARTED=$(date +%s)

for tool in tmux su unshare setpriv pamtester python3; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done

# cgroup2, where sd-login reads a process's session: hybrid (this VM) or unified.
CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }
MOUNTS_BEFORE=$(mounts_at /run/systemd /etc/pam.d/su)

PAM_NO_DISPLAY=1            # pam() adds no display item: every case says what it has
export PAM_WRAPPER_DEBUGLEVEL=2   # the module's debug syslog lines in pamtester's output
SU_USER=$NOPRINTS_USER      # runs `su $TUSER`: su asks for the target user's finger
make_user "$TUSER" "$TPASS"
make_user "$SU_USER" "$TPASS"
SU_UID=$(id -u "$SU_USER")
CONF="$T/touchauth.conf"    # enroll() reads this one too
mkdir -m 0700 "$T/state"
# The lockout and the trust rules are kept out of the way; a short timeout bounds a module
# that wrongly waits for a finger.
write_config "$CONF" "helper=$HELPER" "state_dir=$T/state" "lockout_threshold=1000" \
    "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no" "timeout=4"
enroll "$TUSER" right-index-finger tu-right-index
check "(setup) enroll stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"

LINE="$MODULE config=$CONF debug"
service presence "auth required $LINE"   # touchauth alone: its PAM code is pamtester's verdict
service sshd "auth required $LINE"
printf '%s\n' "auth [success=done default=ignore] $LINE" "auth required pam_unix.so nodelay" \
    "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-su"

PROMPT="Place your finger on the fingerprint reader"
FINGER="SCAN tu-right-index"
AUTHENTICATED="This account is currently not available"   # su to a nologin user got in

# --- the fake logind (tests/e2e/kit/logind.sh) ----------------------------------------------
# $T/none: a /run/systemd with an empty seats/ (this VM's state: logind not running).
# $T/rs (LOGIND): the /run/systemd that the cases of sections 4 and 5 write (logind_session,
# logind_seat0, logind_user), each from nothing (logind_none).
LOGIND="$T/none" logind_none
LOGIND="$T/rs"

# run-in STATE CGROUP COMMAND...: COMMAND in a private mount namespace whose /run/systemd is
# STATE, /etc/pam.d/su our stack ($T/pam-su) and /sys/class/tty ours ($T/sys-class-tty), moved
# into the cgroup CGROUP (made if missing; cleanup removes it). The mounts vanish with the namespace's last process.
cat > "$T/run-in" <<'EOF'
#!/bin/sh
state=$1 cg=$2
shift 2
exec unshare -m --propagation private sh -c '
    mount --bind "$1" /run/systemd || exit 125
    mount --bind "$3" /etc/pam.d/su || exit 125
    mount --bind "$4" /sys/class/tty || exit 125
    mkdir -p "$2" && echo $$ > "$2/cgroup.procs" || exit 125
    shift 4; exec "$@"' sh "$state" "$cg" "$(dirname "$0")/pam-su" "$(dirname "$0")/sys-class-tty" "$@"
EOF
# Its /sys/class/tty: tty0/active names the virtual console on screen (tty3 unless a case says).
mkdir -p "$T/sys-class-tty/tty0"
on_screen() { echo "$1" > "$T/sys-class-tty/tty0/active"; }
on_screen tty3
chmod 0755 "$T/run-in"
# nolib COMMAND...: COMMAND in a private mount namespace where libsystemd.so.0 (the file the
# loader's cache names) is an empty file: dlopen of it fails ("file too short").
LIBSYSTEMD=$(readlink -f "$(ldconfig -p | sed -n 's/^[[:space:]]*libsystemd\.so\.0 (libc6,x86-64) => //p' | head -n 1)")
: > "$T/empty"
chmod 0644 "$T/empty"
cat > "$T/nolib" <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount --bind "\$1" "\$2" || exit 125; shift 2; exec "\$@"' \\
    sh "$T/empty" "$LIBSYSTEMD" "\$@"
EOF
chmod 0755 "$T/nolib"
scope() { echo "$CG/user.slice/user-$1.slice/session-$2.scope"; }  # scope UID SESSION
IN_NONE="$T/run-in $T/none $CG"                        # no logind, cgroup root
outside() { PAM_RUNNER="$T/run-in $T/rs $CG"; }          # logind, outside any session
in_session() { PAM_RUNNER="$T/run-in $T/rs $(scope "$1" "$2")"; }  # in_session UID SESSION

# What sd-login answers in that namespace and cgroup (libsystemd through ctypes).
cat > "$T/probe.py" <<'EOF'
import ctypes, os
sd = ctypes.CDLL("libsystemd.so.0")
def text(fn, *args):
    out = ctypes.c_char_p()
    r = fn(*args, ctypes.byref(out))
    return out.value.decode() if r >= 0 and out.value is not None else "(%s)" % os.strerror(-r)
def flag(fn, s):
    r = fn(s)
    return str(r) if r >= 0 else "(%s)" % os.strerror(-r)
line = ["booted=%d" % sd.sd_booted(), "seat0=%s" % os.path.exists("/run/systemd/seats/seat0")]
s = text(sd.sd_pid_get_session, 0)
line.append("session=" + s)
if not s.startswith("("):
    b = s.encode()
    line += ["remote=" + flag(sd.sd_session_is_remote, b), "active=" + flag(sd.sd_session_is_active, b),
             "type=" + text(sd.sd_session_get_type, b), "class=" + text(sd.sd_session_get_class, b),
             "seat=" + text(sd.sd_session_get_seat, b)]
active = ctypes.c_char_p()
r = sd.sd_seat_get_active(b"seat0", ctypes.byref(active), None)
line.append("seat0.active=" + (active.value.decode() if r >= 0 else "(%s)" % os.strerror(-r)))
if r >= 0:
    line.append("its.class=" + text(sd.sd_session_get_class, active.value))
line.append("uid%d.display=%s" % (os.getuid(), text(sd.sd_uid_get_display, os.getuid())))
print(" ".join(line))
EOF
PROBE=""
probe() { PROBE=$(${PAM_RUNNER:-} python3 "$T/probe.py" 2>&1); echo "#   sd-login: $PROBE" | sed '2,$s/^/#     /'; }
probe_says() { grep -qF -- " $1" <<< " $PROBE"; }  # probe_says KEY=VALUE...
probe_is() { local a; for a in "$@"; do probe_says "$a" || { OUT="sd-login: $PROBE"; return 1; }; done; }

# --- the verdicts (armed: tests/e2e/kit/state.sh) ----------------------------------------------
why() {  # the module's debug lines (pam_wrapper shows its pam_syslog), for the log
    local lines
    lines=$(grep -o 'SYSLOG(7): .*' <<< "$OUT" | sed 's/^SYSLOG(7): //' | paste -sd ';' | sed 's/;/; /g')
    [ -z "$lines" ] || echo "#   module: $lines"
}
# offered: the last run showed the prompt, armed the sensor, and the touch authenticated.
offered() {
    local bad=""
    has "$PROMPT" || bad+=" no-prompt"
    armed || bad+=" sensor-not-armed"
    succeeded || bad+=" not-authenticated"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected offered, got:$bad"; return 1; }
}
# refused: PAM_AUTHINFO_UNAVAIL, no prompt, never armed, nobody authenticated (and our module
# logged: pam_wrapper did not fall back to the real /etc/pam.d).
refused() {
    local bad=""
    has "$MSG_UNAVAIL" || bad+=" not-AUTHINFO_UNAVAIL"
    has "SYSLOG(7): " || bad+=" no-debug-line-from-the-module"
    lacks "$PROMPT" || bad+=" prompt-shown"
    armed && bad+=" sensor-armed"
    succeeded && bad+=" AUTHENTICATED-by-the-touch"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected not offered, got:$bad"; return 1; }
}
# case_pam NAME offered|refused SERVICE [pamtester options...]: pamtester (setsid: no terminal)
# with the enrolled finger's touch queued. (pam() splits PAM_ITEMS and PAM_RUNNER on IFS:
# newline-separated here, so an option may hold spaces, as SSH_CONNECTION's value does.)
case_pam() {
    local name=$1 want=$2 svc=$3; shift 3
    local IFS=$'\n' runner=${PAM_RUNNER:-}
    PAM_RUNNER=${runner// /$'\n'} PAM_ITEMS="$*" pam "$svc" "$TUSER" "" "$FINGER"
    IFS=$' \t\n'
    why
    check "$name -> $want" "$want"
}

# --- tmux: a terminal the module owns -------------------------------------------------------
W=$(mktemp -d /tmp/touchauth-presence.XXXXXX)
chmod 0755 "$W"
mkdir -m 0777 "$W/u"
TMUX_SOCK="$W/tmux.sock"
# The cgroup directories the runs make (deepest first) that do not exist yet: removed at the
# end whatever happens, after moving anything left in them back to the root.
OURS=""
for d in "$(scope "$SU_UID" 7)" "$(scope 0 8)" "$CG/user.slice/user-$SU_UID.slice" \
         "$CG/user.slice/user-0.slice" "$CG/user.slice"; do
    [ -d "$d" ] || OURS+=" $d"
done
for d in "$(scope "$SU_UID" 7)" "$(scope 0 8)"; do
    [ -d "$d" ] && { echo "$d exists already: not ours to use"; echo "0 passed, 1 failed"; exit 1; }
done
# cg_remove DIR: waits (up to 2 s) for DIR's processes to end, moves any left to the root, rmdir.
cg_remove() {
    local p i
    for i in $(seq 100); do [ -s "$1/cgroup.procs" ] || break; sleep 0.02; done
    for p in $(cat "$1/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG/cgroup.procs" 2>/dev/null; done
    rmdir "$1" 2>/dev/null
}
cleanup() {
    tm kill-server 2>/dev/null
    local d
    for d in $OURS; do [ -d "$d" ] && cg_remove "$d"; done
    return 0
}
trap 'cleanup; rm -rf "$W" "$T"' EXIT

shell_as() {  # an interactive shell of user $1, nothing inherited (no SSH_*, no DISPLAY)
    echo "setpriv --reuid=$1 --regid=$1 --init-groups env -i HOME=$W/u TERM=screen" \
         "PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='\$ ' bash --norc --noprofile"
}
# tmux_start RUNNER...: a tmux server (window `su`: $SU_USER's shell, window `pt`: root's)
# started through the runner, so it and its panes are in that namespace and cgroup.
tmux_start() {
    tm kill-server 2>/dev/null
    "$@" tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s t -n su -x 160 -y 50 "$(shell_as "$SU_USER")"
    tm new-window -d -t t -n pt "env -i HOME=$W/u TERM=screen PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='# ' bash --norc --noprofile"
    tm set-option -g history-limit 0 > /dev/null
    wait_for su '$' 5; wait_for pt '#' 5
}
# tmux_su NAME offered|refused: `su $TUSER` typed in $SU_USER's shell, the touch queued; the
# password is typed if su asks for it (a module that refuses must leave su its password): once
# su's "Password:" stands below this case's own mark (the last case's prompt may still be on
# the screen until the shell has run `clear`: typed then, the password went to the shell).
SU_CASES=0
tmux_su() {
    local name=$1 want=$2 sender mark
    SU_CASES=$((SU_CASES + 1)); mark="su-case-$SU_CASES"
    rm -f "$SOCK" "$W/u/rc"
    tm send-keys -t t:su "clear; echo $mark; (su $TUSER -c true; exit \$?); echo \$? > $W/u/rc" Enter
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null 2>&1 & sender=$!
    local deadline=$(($(now_ms) + 15000)) typed=0
    until [ -s "$W/u/rc" ] || [ "$(now_ms)" -gt "$deadline" ]; do
        if [ "$typed" = 0 ] && screen su | sed -n "/^$mark\$/,\$p" | grep -q "^Password: *$"; then
            tm send-keys -t t:su -l "$TPASS"; tm send-keys -t t:su Enter; typed=1
        fi
        sleep 0.05
    done
    kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null
    OUT=$(screen su)
    if [ "$want" = offered ]; then
        check "$name -> offered" su_offered
    else
        check "$name -> not offered, su asks for the password" su_refused
    fi
}
su_offered() {
    local bad=""
    has "$PROMPT" || bad+=" no-prompt"; armed || bad+=" sensor-not-armed"
    has "$AUTHENTICATED" || bad+=" not-authenticated"; lacks "Password:" || bad+=" password-asked"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected offered, got:$bad"; return 1; }
}
su_refused() {
    local bad=""
    lacks "$PROMPT" || bad+=" prompt-shown"; armed && bad+=" sensor-armed"
    has "Password:" || bad+=" no-password-prompt"
    has "$AUTHENTICATED" || bad+=" the-password-did-not-get-in"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected not offered, got:$bad"; return 1; }
}
# tmux_pt NAME offered|refused ITEMS...: pamtester in root's pane (the terminal owned: the
# pane's foreground, stdin the terminal), the touch queued; $(tty) is the pane's own terminal.
tmux_pt() {
    local name=$1 want=$2 sender; shift 2
    rm -f "$SOCK" "$W/rc" "$W/pt.out"
    tm send-keys -t t:pt "clear; LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_DEBUGLEVEL=2 PAM_WRAPPER_SERVICE_DIR=$T/pam.d timeout 30 pamtester -v $* presence $TUSER authenticate > $W/pt.out 2>&1; echo \$? > $W/rc" Enter
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null 2>&1 & sender=$!
    wait_file "$W/rc" 20
    kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null
    OUT=$(cat "$W/pt.out" 2>/dev/null)
    why
    check "$name -> $want" "$want"
}

# ptyjob.py: runs `su $TUSER -c id` on a pty it opens, answers su's password prompt with an
# empty line (the job knows no password), and prints what the pty showed.
cat > "$W/ptyjob.py" <<'EOF'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp("su", ["su", sys.argv[1], "-c", "id"])
out, answered, end = b"", False, time.monotonic() + 20
while time.monotonic() < end:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
        if not answered and b"Password:" in out:
            os.write(fd, b"\n"); answered = True
    elif os.waitpid(pid, os.WNOHANG)[0] == pid:
        break
sys.stdout.write(out.decode(errors="replace"))
EOF
# The strict config: the default terminal_without_logind = no.
write_config "$T/strict.conf" "helper=$HELPER" "state_dir=$T/state" "lockout_threshold=1000" \
    "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no" "timeout=4" \
    "terminal_without_logind=no"
pam_su() {  # pam_su CONFIG: /etc/pam.d/su of the namespaces with that config (rewritten in place)
    printf '%s\n' "auth [success=done default=ignore] $MODULE config=$1 debug" "auth required pam_unix.so nodelay" \
        "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-su"
}
pty_job() {  # pty_job: the job, as $SU_USER, the touch queued; OUT what its pty showed
    rm -f "$SOCK"
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null 2>&1 & local sender=$!
    $IN_NONE setpriv --reuid="$SU_UID" --regid="$SU_UID" --init-groups \
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin setsid -w timeout 30 python3 "$W/ptyjob.py" "$TUSER" \
        < /dev/null > "$T/out" 2>&1
    kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null
    OUT=$(cat "$T/out")
}
# su_pipe PASSWORD: `setsid su $TUSER` as $SU_USER, the password on stdin, a touch queued.
su_pipe() {
    rm -f "$SOCK"
    python3 "$E2E/vsensor.py" "$SOCK" "$FINGER" > /dev/null 2>&1 & local sender=$!
    printf '%s\n' "$1" | env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DISPLAY=:0 $IN_NONE \
        setpriv --reuid="$SU_UID" --regid="$SU_UID" --init-groups \
        setsid -w timeout 30 su "$TUSER" -c true > "$T/out" 2>&1
    RC=$?
    kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null
    OUT="$(cat "$T/out")"$'\n'"(su exit status $RC)"
}
# fresh_logind: a case's start in sections 4 and 5: no tmux server left, logind's files
# written anew, VT 3 on screen, su's stack the usual one.
fresh_logind() { tm kill-server 2>/dev/null; logind_none; on_screen tty3; pam_su "$CONF"; }

# =============================================================================================
no_logind() {
    PAM_RUNNER=$IN_NONE probe
    check "(setup) sd-login: no seat0, not in a session" probe_is seat0=False "session=(No data available)"
    PAM_RUNNER=$IN_NONE
    case_pam "no terminal, no display item (pamtester under setsid)" refused presence
    case_pam "no terminal, PAM_TTY :0 (a display item)" offered presence -I tty=:0
    case_pam "no terminal, PAM_TTY :1 (a display item)" offered presence -I tty=:1
    DISPLAY=:0 XAUTHORITY=/tmp/xa case_pam "no terminal, DISPLAY=:0 in the process environment only" refused presence
    WAYLAND_DISPLAY=wayland-0 XDG_SESSION_TYPE=wayland case_pam \
        "no terminal, WAYLAND_DISPLAY and XDG_SESSION_TYPE in the environment only" refused presence
    case_pam "no terminal, DISPLAY=:0 in the PAM environment only" refused presence -E DISPLAY=:0
    case_pam "no terminal, PAM_TTY /dev/pts/0 but no terminal owned" refused presence -I tty=/dev/pts/0
    PAM_RUNNER=""
}
case_ "1. no logind (an empty /run/systemd/seats, as on this VM): someone must answer" no_logind

pty_job_case() {
    pam_su "$T/strict.conf"
    pty_job
    check "no logind, the default: su in a job's pty -> no prompt, the sensor never opened" eval 'lacks "$PROMPT" && ! armed'
    check "...su asks for the password, and the touch at the sensor let nobody in" eval 'has "Password:" && lacks "$AUTHENTICATED"'
    pam_su "$CONF"
    pty_job
    check "(control) the same with terminal_without_logind = yes: the prompt, and the touch gets in" \
        eval 'has "$PROMPT" && has "$AUTHENTICATED"'
}
case_ "1b. no logind: a pseudo-terminal a job made (no terminal, empty environment, as cron runs one)" pty_job_case

su_no_terminal() {
    pam_su "$CONF"
    su_pipe "$TPASS"
    check "setsid su, the right password (DISPLAY set too) -> not offered, the password gets in" \
        su_refused
    su_pipe "not the password"
    check "setsid su, a wrong password and a touch at the sensor -> not authenticated" \
        eval 'has "Authentication failure" && lacks "$AUTHENTICATED" && [ "$RC" -ne 0 ] && ! armed'
}
case_ "2. real su with no terminal at all (setsid, stdin a pipe), run by $SU_USER" su_no_terminal

network() {
    PAM_RUNNER=$IN_NONE
    # Each has a display item: only the network signal can refuse.
    local h v
    for h in 127.0.0.1 ::1 localhost "$(hostname)" 203.0.113.9; do
        case_pam "PAM_RHOST $h (display item :0)" refused presence -I tty=:0 -I "rhost=$h"
    done
    for v in "SSH_CONNECTION=127.0.0.1 50000 127.0.0.1 22" "SSH_CLIENT=127.0.0.1 50000 22" \
             "SSH_TTY=/dev/pts/9" "SSH_AUTH_INFO_0=password"; do
        case_pam "${v%%=*} in the PAM environment only (display item :0)" refused presence -I tty=:0 -E "$v"
    done
    check "(setup) the process environment has no SSH_*" test -z "$(env | grep '^SSH_')"
    case_pam "service sshd, no rhost (display item :0)" refused sshd -I tty=:0
    case_pam "PAM_RHOST empty, as login sets it (display item :0)" offered presence -I tty=:0 -I rhost=
    PAM_RUNNER=""
}
case_ "3. network logins: any non-empty PAM_RHOST, SSH_* in the PAM environment, sshd" network

# Section 4: the caller in session 7 of $SU_USER. In each case only the one key differs from a
# local active tty session on seat0.
# session7 ACTIVE ACTIVE_UID SESSIONS [KEY=VALUE...]: a case's start: seat0 (as logind_seat0),
# session 7 (as logind_session with the KEY=VALUEs), the caller in it.
session7() {
    fresh_logind
    logind_seat0 "$1" "$2" "$3"
    logind_session 7 "$SU_UID" "${@:4}"
    in_session "$SU_UID" 7
}
su_in_session7() {  # su_in_session7 NAME offered|refused: tmux_su in a tmux server in session 7
    tmux_start "$T/run-in" "$T/rs" "$(scope "$SU_UID" 7)"
    tmux_su "$@"
    tm kill-server 2>/dev/null
}
s7_remote() {
    session7 7 "$SU_UID" 7 REMOTE=1 REMOTE_HOST=127.0.0.1 SERVICE=sshd
    probe
    check "(setup) sd-login: in session 7, remote" probe_is booted=1 seat0=True session=7 remote=1
    case_pam "remote session (ssh from loopback, no SSH_* anywhere), display item :0" refused presence -I tty=:0
    su_in_session7 "remote session, real su in its terminal, no SSH_*" refused
}
case_ "4. fake logind, the caller in session 7 of $SU_USER: a remote session" s7_remote

s7_not_active() {
    session7 "" "" 7 ACTIVE=0 STATE=online
    probe
    check "(setup) sd-login: in session 7, local, not active" probe_is session=7 remote=0 active=0 seat=seat0
    case_pam "session not active, display item :0" refused presence -I tty=:0
    su_in_session7 "session not active, real su in its terminal" refused
}
case_ "4. ...a session not active" s7_not_active

s7_no_seat() {
    session7 "" "" "" SEAT=
    probe
    check "(setup) sd-login: in session 7, local, active, no seat" probe_is session=7 remote=0 active=1 "seat=(No data available)"
    case_pam "session without a seat, display item :0" refused presence -I tty=:0
}
case_ "4. ...a session without a seat" s7_no_seat

s7_local_tty() {
    session7 7 "$SU_UID" 7
    probe
    check "(setup) sd-login: in session 7, local active tty on seat0" probe_is session=7 remote=0 active=1 type=tty seat=seat0
    su_in_session7 "local active tty session, real su in its terminal" offered
    case_pam "local active tty session, no terminal, no display item" refused presence
    # The next cases differ from this one only in what sd-login can answer.
    case_pam "local active tty session, display item :0" offered presence -I tty=:0
}
case_ "4. ...a local active tty session" s7_local_tty

s7_sd_login_fails() {
    session7 7 "$SU_UID" 7
    # logind runs (seat0 exists) but libsystemd cannot be loaded: the careful side, not "no logind".
    PAM_RUNNER="$T/nolib $T/run-in $T/rs $(scope "$SU_UID" 7)"
    probe
    check "(setup) libsystemd.so.0 cannot be loaded there" grep -qF "libsystemd.so.0: file too short" <<< "$PROBE"
    case_pam "logind runs, libsystemd.so.0 cannot be loaded, display item :0" refused presence -I tty=:0
    in_session "$SU_UID" 7
    # sd_session_is_remote fails (no REMOTE= line: -ENODATA; not a boolean: -EINVAL): counts as remote.
    logind_session 7 "$SU_UID" REMOTE=
    probe
    check "(setup) sd-login: session 7 without REMOTE=, remote unknown" probe_is session=7 "remote=(No data available)" active=1 seat=seat0
    case_pam "session file without REMOTE= (sd_session_is_remote fails), display item :0" refused presence -I tty=:0
    logind_session 7 "$SU_UID" REMOTE=maybe
    probe
    check "(setup) sd-login: session 7 with REMOTE=maybe, remote unknown" probe_is session=7 "remote=(Invalid argument)" active=1 seat=seat0
    case_pam "session file with REMOTE=maybe (sd_session_is_remote fails), display item :0" refused presence -I tty=:0
}
case_ "4. ...sd-login cannot answer (libsystemd not loaded, REMOTE= missing or not a boolean)" s7_sd_login_fails

s7_x11() {
    session7 7 "$SU_UID" 7 TYPE=x11
    probe
    check "(setup) sd-login: in session 7, local active x11 on seat0" probe_is session=7 type=x11 seat=seat0
    case_pam "local active x11 session, no terminal, no display item (a polkit agent's helper)" offered presence
}
case_ "4. ...a local active x11 session" s7_x11
tm kill-server 2>/dev/null
PAM_RUNNER=""
cg_remove "$(scope "$SU_UID" 7)"
check "(cleanup) session 7's cgroup removed" test ! -d "$(scope "$SU_UID" 7)"

# Section 5: the caller outside any session; someone else's (7: $SU_USER's) local active tty
# session on seat0 unless a case puts another in front.
outside_someone_in_front() {
    fresh_logind
    logind_seat0 7 "$SU_UID" 7
    logind_session 7 "$SU_UID"
    outside
}
outside_terminals() {
    outside_someone_in_front
    probe
    check "(setup) sd-login: outside any session, seat0 active = 7" probe_is booted=1 "session=(No data available)" seat0.active=7 "uid0.display=(No data available)"
    tmux_start "$T/run-in" "$T/rs" "$CG"
    tmux_pt "pseudo-terminal (PAM_TTY its /dev/pts/N), the terminal owned" refused '-I tty=$(tty)'
    tmux_pt "PAM_TTY tty3 (a text login), the terminal owned" offered -I tty=tty3
    tmux_pt "PAM_TTY /dev/tty3 (a text login), the terminal owned" offered -I tty=/dev/tty3
    tmux_pt "PAM_TTY /dev/tty3x (not a console), the terminal owned" refused -I tty=/dev/tty3x
    on_screen tty1
    tmux_pt "PAM_TTY tty3, the terminal owned, but VT 1 is on screen (tty0/active: a console login left on VT 3)" \
        refused -I tty=tty3
    tmux_pt "PAM_TTY /dev/tty3, the terminal owned, VT 1 on screen" refused -I tty=/dev/tty3
    tmux_pt "(control) PAM_TTY tty1, the terminal owned, VT 1 on screen" offered -I tty=tty1
    on_screen tty3
    tm kill-server 2>/dev/null
}
case_ "5. fake logind, the caller outside any session: the terminal it owns" outside_terminals

outside_no_terminal() {
    outside_someone_in_front
    case_pam "PAM_TTY tty3 but no terminal owned (nobody types)" refused presence -I tty=tty3
    case_pam "display item :0, seat0's active session a user's tty session" refused presence -I tty=:0
}
case_ "5. ...no terminal, someone's text session in front" outside_no_terminal

greeter_in_front() {  # outside_someone_in_front, then LightDM's greeter c1 in front
    outside_someone_in_front
    logind_session c1 65534 CLASS=greeter TYPE=x11 USER=lightdm
    logind_seat0 c1 65534 "c1 7"
}
outside_greeter() {
    greeter_in_front
    probe
    check "(setup) sd-login: seat0's active session c1 is a greeter" probe_is seat0.active=c1 its.class=greeter
    case_pam "display item :0, seat0's active session a greeter (the login screen)" offered presence -I tty=:0
    case_pam "a greeter on seat0, but no display item and no terminal" refused presence
    case_pam "a greeter on seat0, PAM_TTY /dev/tty1 and no terminal (GDM on Wayland sets only that)" offered presence -I tty=/dev/tty1
    # The console's name, not its prefix: tty1x is no virtual console, so no greeter's display either.
    case_pam "a greeter on seat0, PAM_TTY /dev/tty1x (not a console) and no terminal" refused presence -I tty=/dev/tty1x
}
case_ "5. ...a greeter in front" outside_greeter

root_display_in_front() {  # greeter_in_front, then root's (the caller's uid) x11 session 8 in front
    greeter_in_front
    logind_session 8 0 TYPE=x11 CLASS=user
    logind_seat0 8 0 "c1 7 8"
    logind_user 0 8 8
}
outside_own_display() {
    root_display_in_front
    probe
    check "(setup) sd-login: uid 0 has display session 8, local active x11 on seat0" probe_is "session=(No data available)" uid0.display=8 seat0.active=8
    tmux_start "$T/run-in" "$T/rs" "$CG"
    tmux_pt "caller's uid (root) at a local active graphical session, its pseudo-terminal owned (GNOME Terminal runs outside the session)" offered '-I tty=$(tty)'
    tm kill-server 2>/dev/null
    case_pam "caller's uid at a local active graphical session, a display item (a screen locker outside the session)" offered presence -I tty=:0
    # Past the session rule, someone must still answer: a daemon or cron job of that uid is refused.
    case_pam "caller's uid at a local active graphical session, but no items and no terminal" refused presence
}
case_ "5. ...the caller's uid at a local active graphical session" outside_own_display

outside_own_display_not_usable() {
    root_display_in_front
    logind_session 8 0 TYPE=x11 CLASS=user REMOTE=1 REMOTE_HOST=127.0.0.1
    case_pam "caller's uid at a graphical session that is remote (display item :0)" refused presence -I tty=:0
    logind_session 8 0 TYPE=x11 CLASS=user ACTIVE=0 STATE=online
    logind_seat0 7 "$SU_UID" "c1 7 8"
    case_pam "caller's uid at a graphical session that is not active (display item :0)" refused presence -I tty=:0
    logind_session 8 0 TYPE=tty CLASS=user
    logind_seat0 8 0 "c1 7 8"
    case_pam "caller's uid at a local active session that is not graphical (display item :0)" refused presence -I tty=:0
}
case_ "5. ...the caller's uid at a session that is remote, not active, or not graphical" outside_own_display_not_usable

# peer-in SCOPE CMD...: CMD with stdin a unix socket whose peer (SO_PEERCRED) is a process of
# cgroup SCOPE (a session's): a listener moved there accepts CMD's connection and holds it.
cat > "$T/peer-in" <<'EOF'
#!/usr/bin/python3
import os, socket, sys, tempfile
scope, cmd = sys.argv[1], sys.argv[2:]
path = os.path.join(tempfile.mkdtemp(), "peer.sock")
r, w = os.pipe()
if os.fork() == 0:
    os.makedirs(scope, exist_ok=True)
    with open(os.path.join(scope, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    os.write(w, b"x")
    conn, _ = srv.accept()
    conn.recv(1)  # until CMD's end closes it
    os._exit(0)
os.read(r, 1)
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.connect(path)
os.dup2(c.fileno(), 0)
os.execvp(cmd[0], cmd)
EOF
chmod 0755 "$T/peer-in"
# Only polkit's socket-activated helper (its fixed paths, root started by PID 1) takes its
# socket's peer for the person (presence_subject): any other program's stdin says nothing.
outside_socket_peer() {
    outside_someone_in_front
    logind_session 7 "$SU_UID" TYPE=x11
    service polkit-1 "auth required $LINE"
    PAM_RUNNER="$T/run-in $T/rs $CG $T/peer-in $(scope "$SU_UID" 7)"
    case_pam "service polkit-1, stdin a socket whose peer sits in a local active x11 session, the host not polkit's helper (pamtester, root, outside any session)" refused polkit-1
    outside
}
case_ "5. ...a socket's peer in a local session, the host not polkit's socket-activated helper" outside_socket_peer
PAM_RUNNER=""

cleanup
check "(cleanup) no cgroup directory of ours left" sh -c "! ls -d $OURS 2>/dev/null | grep -q ."
check "(cleanup) the tmux server is gone" sh -c "! tmux -S '$TMUX_SOCK' ls 2>/dev/null"
check "(cleanup) nothing mounted over /run/systemd or /etc/pam.d/su out here" \
    test "$(mounts_at /run/systemd /etc/pam.d/su)" = "$MOUNTS_BEFORE"
echo "# run time $(($(date +%s) - STARTED)) s (module $MODULE, helper $HELPER)"
summary
