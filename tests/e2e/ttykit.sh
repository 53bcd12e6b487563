# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Real terminal programs in tmux (terminal.sh, clients_doas.sh): each case runs a command in a
# window's shell and leaves its traces in $W/u (its exit status, `stty -g` before and after, a
# marker the command may touch), which the checks below read. Needs lib.sh and STATE_DIR (the
# helper's state directory, made by the suite). Sourcing it makes W, a 0755 temp dir with a 0777
# u/ in it, where the test users' shells leave their traces (rc, stty -g, markers), TMUX_SOCK,
# and the trap: the tmux server is the namespace's last process, so killing it unmounts
# everything; then W, T and TTY_CLEANUP (more paths of the suite) go.
W=$(mktemp -d /tmp/touchauth-tty.XXXXXX)
chmod 0755 "$W"
mkdir "$W/u"
chmod 0777 "$W/u"
TMUX_SOCK="$W/tmux.sock"
trap 'tm kill-server 2>/dev/null; rm -rf "$W" "$T" ${TTY_CLEANUP:-}' EXIT

# conf [key=value...]: the suite's $CONF, rewritten in place (same file, new keys). The trust
# rules have their own suite: off here.
conf() {
    write_config "$CONF" "helper=$HELPER" "state_dir=$STATE_DIR" "password_after_boot=no" \
        "password_max_age=0" "password_after_enroll_change=no" "$@"
}

shell_as() {  # the command line of an interactive shell of user $1, nothing inherited
    echo "setpriv --reuid=$1 --regid=$1 --init-groups env -i HOME=$W/u TERM=screen" \
         "PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='\$ ' bash --norc --noprofile"
}
# start WINDOW COMMAND: runs COMMAND in the window's shell between two `stty -g`, recording its
# exit status; clears the screen and the traces first. (In a subshell: an interactive bash whose
# child dies of SIGINT drops the rest of the line.)
start() {
    rm -f "$W/u/before" "$W/u/after" "$W/u/rc" "$W/u/ran" "$SOCK"
    tm send-keys -t "t:$1" "clear; stty -g > $W/u/before; ($2; exit \$?); echo \$? > $W/u/rc; stty -g > $W/u/after" Enter
    # Past the clear: a wait_for right after must not find the previous case's screen (the
    # fingerprint prompt still shown above sudo's own password prompt matched once).
    wait_file "$W/u/before"
}
finish() { wait_file "$W/u/after"; OUT=$(screen "$1"); }
rc_is() { [ "$(cat "$W/u/rc" 2>/dev/null)" = "$1" ]; }
ran() { [ -e "$W/u/ran" ]; }
stty_same() { [ -s "$W/u/before" ] && cmp -s "$W/u/before" "$W/u/after"; }
sensor_never_armed() { [ ! -e "$SOCK" ]; }
# No helper alive below the window's shell (shell -> subshell -> sudo or su -> helper).
no_helper_left() {
    local todo found=""
    todo=$(tm display -p -t "t:$1" '#{pane_pid}')
    while [ -n "$todo" ]; do
        local next=""
        for p in $todo; do
            [ "$(cat /proc/"$p"/comm 2>/dev/null)" = touchauth ] && found+=" $p"
            next+=" $(pgrep -P "$p" | tr '\n' ' ')"
        done
        todo=$(echo $next)
    done
    [ -z "$found" ]
}
helper_alive() { ! no_helper_left "$1"; }
# helper_pid WINDOW: the pid of the helper below the window's shell (empty if none);
# below WINDOW NAME: the same for the first process called NAME.
helper_pid() { below "$1" touchauth; }
below() {
    local todo
    todo=$(tm display -p -t "t:$1" '#{pane_pid}')
    while [ -n "$todo" ]; do
        local next=""
        for p in $todo; do
            [ "$(cat /proc/"$p"/comm 2>/dev/null)" = "$2" ] && { echo "$p"; return; }
            next+=" $(pgrep -P "$p" | tr '\n' ' ')"
        done
        todo=$(echo $next)
    done
}
# gone PID: not running (an orphan's zombie counts as gone: this VM's init does not reap).
gone() { local st; st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null); [ -z "$st" ] || [ "$st" = Z ]; }
# wait_gone PID: until it is gone (bounded: 5 s).
wait_gone() { local i; for i in $(seq 500); do gone "$1" && return 0; sleep 0.01; done; return 1; }
# input_queued WINDOW: bytes typed into the window's terminal that nobody has read yet.
input_queued() {
    /usr/bin/python3 -c 'import fcntl, os, struct, sys, termios
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
print(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0])' "$(tm display -p -t "t:$1" '#{pane_tty}')"
}
# wait_read WINDOW: until everything typed into it has been read (by the module, at the prompt).
wait_read() { local i; for i in $(seq 500); do [ "$(input_queued "$1")" = 0 ] && return 0; sleep 0.01; done; return 1; }
# wait_prompts WINDOW N: until the fingerprint prompt has been shown N times.
wait_prompts() {
    local i
    for i in $(seq 1000); do [ "$(screen "$1" | grep -cF -- "$PROMPT")" -ge "$2" ] && return 0; sleep 0.01; done
    return 1
}
