#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The "Enter Password" button in a terminal (issue 4), with the real things: sudo and su (setuid,
# so no pam_wrapper) and login (run by root, as getty runs it) in a private mount namespace whose
# /etc/pam.d/sudo, /etc/pam.d/su, /etc/pam.d/login and /etc/sudoers are our test files
# bind-mounted over the real ones (never edited), driven in tmux as test users with passwords,
# against libfprint's virtual sensor and pam_unix.so.
#
# Proofs used below: the vsensor socket appears only when the helper opens the sensor, so "no
# socket" means "the sensor was never armed"; the children of the sudo/su process show whether a
# helper is still alive; `stty -g` before and after each command shows the terminal's mode.
source "$(dirname "$0")/lib.sh"

for tool in tmux sudo su login unshare setpriv; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done

PAM_SUDO_SUM=$(sha256sum < /etc/pam.d/sudo)
SU_USER=$NOPRINTS_USER   # runs `su $TUSER`: su authenticates the target user, with their finger
make_user "$TUSER" "$TPASS"
make_user "$SU_USER" "$TPASS"
CONF="$T/touchauth.conf"  # enroll() reads this one too
STATE_DIR="$T/state"
mkdir -m 0700 "$STATE_DIR"
source "$E2E/ttykit.sh"
conf
enroll "$TUSER" right-index-finger tu-right-index

LINE="auth [success=done abort=die default=ignore] $MODULE config=$CONF debug"
for svc in sudo su login; do
    printf '%s\n' "$LINE" "auth required pam_unix.so try_first_pass nodelay" \
        "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-$svc"
done
printf '%s\n' 'Defaults !lecture, timestamp_timeout=0' 'root ALL=(ALL:ALL) ALL' \
    "$TUSER ALL=(root) ALL" > "$T/sudoers"
chmod 0440 "$T/sudoers"

unshare -m sh -c 'mount --bind "$1" /etc/pam.d/sudo && mount --bind "$2" /etc/pam.d/su &&
    mount --bind "$3" /etc/sudoers && mount --bind "$6" /etc/pam.d/login &&
    exec tmux -S "$4" -f /dev/null new-session -d -s t -n sudo -x 160 -y 50 "$5"' \
    sh "$T/pam-sudo" "$T/pam-su" "$T/sudoers" "$TMUX_SOCK" "$(shell_as "$TUSER")" "$T/pam-login"
tm new-window -d -t t -n su "$(shell_as "$SU_USER")"
# login runs as root (as getty starts it), with the user's name given, as getty passes it.
tm new-window -d -t t -n login "env -i HOME=$W/u TERM=screen PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='# ' bash --norc --noprofile"
tm set-option -g history-limit 0 > /dev/null

PROMPT="Place your finger on the fingerprint reader"
HINT="[Enter Password] press Enter, or type your password"
SUDO_PW="password for $TUSER"
SUDO_RUN="sudo touch $W/u/ran"
TUID=$(id -u "$TUSER")  # (kit/state.sh: the test user of the state helpers)

# names WINDOW COMMAND WAIT-FOR TEXT [TITLE]: COMMAND's prompt shows TEXT; Ctrl-C ends it.
names() {
    start "$1" "$2"
    wait_for "$1" "$3"
    OUT=$(screen "$1")
    check "${5:-$2 -> the prompt says: $4}" has "$4"
    tm send-keys -t "t:$1" C-c
    finish "$1"
}
# Characters, whatever the locale (wc -m counted bytes in a fresh root, even under C.UTF-8).
chars() { printf '%s' "$1" | python3 -c 'import sys; print(len(sys.stdin.buffer.read().decode()))'; }

# Each case below starts its own command in its window (start clears the traces), with the
# config as the common setup left it (a case that changes it puts it back); a filtered run
# (scripts/test.sh terminal:REGEX) runs only the cases it picks.

sudo_finger() {
    start sudo "$SUDO_RUN"
    wait_for sudo "$HINT"
    OUT=$(screen sudo)
    check "the hint offers Enter and typing" has "$HINT"
    check "the prompt names what the touch approves: the command and the user (from sudo's argv)" \
        has "sudo wants to run as root: touch $W/u/ran"
    check "(control) the helper runs under sudo while the prompt is up" helper_alive sudo
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null
    finish sudo
    check "finger -> the command ran" ran
    check "finger -> sudo exit status 0" rc_is 0
    check "finger -> no password asked" lacks "$SUDO_PW"
    check "finger -> stty -g identical before and after" stty_same
}
case_ "sudo: the enrolled finger" sudo_finger

sudo_what_it_approves() {
    # Typed into the shell: $'\e[2J' (clear the screen) and $'\xff' reach sudo's argv as bytes.
    start sudo "B=\$(printf '%010240d' 7); echo before-the-prompt; sudo /bin/echo \$'\\e[2J\\e[31m' \$'\\xff\\xc2\\x9b' \$B"
    wait_for sudo "$HINT"
    OUT=$(screen sudo)
    APPROVE=$(grep -a '^sudo wants to run as root: ' <<<"$OUT" | head -n 1)
    echo "#   (the line: ${APPROVE:0:90}...; $(chars "$APPROVE") characters)"
    check "escape sequences shown as text, not drawn: \\e[2J\\e[31m" has 'sudo wants to run as root: /bin/echo \e[2J\e[31m \xff\u{009b} 0000'
    check "(control) what was printed before the prompt is still on screen (nothing cleared it)" \
        has "before-the-prompt"
    check "a 10 KB argument: one line of the 160-column terminal, ending in an ellipsis" \
        eval '[ "$(chars "$APPROVE")" -le 159 ] && [[ "$APPROVE" == *"0000…" ]]'
    tm send-keys -t t:sudo C-c
    finish sudo
    check "(control) Ctrl-C -> nothing ran" eval '! ran'
}
case_ "what the touch approves: a command line that tries to draw, 10 KB, invalid UTF-8" sudo_what_it_approves

sudo_shell_show_command() {
    names sudo "sudo -s" "$HINT" "sudo wants to open a shell as root"
    printf '%s\n' "$LINE show_command=no reason=the-reason-of-this-service" \
        "auth required pam_unix.so try_first_pass nodelay" "account required pam_permit.so" \
        "session required pam_permit.so" > "$T/pam-sudo"  # the same file (inode) as the bind mount
    start sudo "$SUDO_RUN"
    wait_for sudo "$HINT"
    OUT=$(screen sudo)
    check "show_command=no -> no command on the prompt" lacks "wants to run"
    check "show_command=no -> the service's reason instead" has "the-reason-of-this-service"
    tm send-keys -t t:sudo C-c
    finish sudo
    printf '%s\n' "$LINE" "auth required pam_unix.so try_first_pass nodelay" \
        "account required pam_permit.so" "session required pam_permit.so" > "$T/pam-sudo"
}
case_ "what the touch approves: sudo -s (a shell), and show_command=no" sudo_shell_show_command

sudo_enter() {
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    t0=$(now_ms)
    tm send-keys -t t:sudo Enter
    wait_for sudo "$SUDO_PW"
    ENTER_MS=$(($(now_ms) - t0))
    OUT=$(screen sudo)
    check "Enter -> sudo's password prompt (after ${ENTER_MS} ms)" has "$SUDO_PW"
    check "Enter -> the helper is gone (killed and reaped) at the password prompt" no_helper_left sudo
    type_line sudo "$TPASS"
    finish sudo
    check "Enter, then the password -> the command ran" ran
    check "Enter, then the password -> exit status 0" rc_is 0
    check "Enter -> stty -g identical" stty_same
}
case_ "sudo: Enter at the fingerprint prompt" sudo_enter

sudo_typed() {
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    type_line sudo "$TPASS"
    finish sudo
    check "typed password -> the command ran" ran
    check "typed password -> exit status 0" rc_is 0
    check "typed password -> no second prompt" lacks "$SUDO_PW"
    check "typed password -> not echoed" lacks "$TPASS"
    check "typed password -> stty -g identical" stty_same
}
case_ "sudo: typing the password at the fingerprint prompt" sudo_typed

sudo_wrong_typed() {
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    type_line sudo "not the password"
    # pam_unix fails the typed password (try_first_pass does not ask again); sudo's next try runs
    # the stack again: the fingerprint prompt is back, and takes a typed password again.
    wait_for sudo "Sorry, try again"
    wait_prompts sudo 2  # the module owns the terminal again once its prompt is shown
    type_line sudo "$TPASS"
    finish sudo
    check "wrong typed password -> sudo's 'Sorry, try again'" has "Sorry, try again"
    check "...then the fingerprint prompt again" test "$(grep -cF "$PROMPT" <<< "$OUT")" -eq 2
    check "...the right password typed there -> the command ran" ran
    check "...no password prompt of sudo's own" lacks "$SUDO_PW"
    check "...stty -g identical" stty_same
}
case_ "sudo: a wrong password typed at the fingerprint prompt" sudo_wrong_typed

sudo_ctrl_c() {
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    tm send-keys -t t:sudo C-c
    finish sudo
    check "Ctrl-C -> the command did not run" test ! -e "$W/u/ran"
    check "Ctrl-C -> sudo exits 1, as at its password prompt" rc_is 1
    check "Ctrl-C -> 'a password is required', as at its password prompt" has "sudo: a password is required"
    check "Ctrl-C -> no password prompt" lacks "$SUDO_PW"
    check "Ctrl-C -> stty -g identical" stty_same
    check "Ctrl-C -> no helper left" no_helper_left sudo
}
case_ "sudo: Ctrl-C at the fingerprint prompt" sudo_ctrl_c

sudo_ctrl_c_typing() {
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    tm send-keys -t t:sudo -l "corr"
    tm send-keys -t t:sudo C-c
    finish sudo
    check "Ctrl-C mid-password -> the command did not run" test ! -e "$W/u/ran"
    check "Ctrl-C mid-password -> stty -g identical" stty_same
}
case_ "sudo: Ctrl-C while typing the password" sudo_ctrl_c_typing

sudo_no_title() {
    conf "fallback_title="
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    tm send-keys -t t:sudo Enter
    type_line sudo "abc"
    OUT=$(screen sudo)
    check "empty title -> the module read the keys (nothing left in the terminal's input)" wait_read sudo
    OUT=$(screen sudo)
    check "empty title -> no hint" lacks "[Enter Password]"
    check "empty title -> Enter does not bring the password prompt" lacks "$SUDO_PW"
    check "empty title -> the helper still waits for the finger" test ! -e "$W/u/rc"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null
    finish sudo
    check "empty title -> the finger still works" ran
    check "empty title -> stty -g identical" stty_same
    conf
}
case_ "sudo: fallback_title empty: no hint, Enter and typing do nothing" sudo_no_title

sudo_timeout() {
    conf "timeout=1"
    start sudo "$SUDO_RUN"
    wait_for sudo "$SUDO_PW" 15
    type_line sudo "$TPASS"
    finish sudo
    check "timeout -> 'timed out', then the password prompt" has "Fingerprint timed out"
    check "timeout -> the password runs the command" ran
    check "timeout -> stty -g identical" stty_same
    conf
}
case_ "sudo: the fingerprint times out" sudo_timeout

sudo_crash() {
    printf '#!/bin/sh\necho "touchauth 1"\necho "info %s"\nsleep 0.3\nkill -SEGV $$\n' "$PROMPT" > "$T/crash-helper"
    chmod 0755 "$T/crash-helper"
    conf "helper=$T/crash-helper"
    start sudo "$SUDO_RUN"
    wait_for sudo "$SUDO_PW"
    type_line sudo "$TPASS"
    finish sudo
    check "crash -> the password prompt, and the password runs the command" ran
    check "crash -> stty -g identical" stty_same
    conf
}
case_ "sudo: the helper crashes mid-prompt" sudo_crash

sudo_nobody() {
    start sudo "sudo -n touch $W/u/ran"
    finish sudo
    check "sudo -n -> 'a password is required'" has "a password is required"
    check "sudo -n -> the sensor was never armed" sensor_never_armed
    t0=$(now_ms)
    start sudo "echo '$TPASS' | sudo -S -p '' touch $W/u/ran"
    finish sudo
    S_MS=$(($(now_ms) - t0))
    check "sudo -S (stdin a pipe) -> the password from stdin runs the command (${S_MS} ms in all)" ran
    check "sudo -S -> no fingerprint prompt" lacks "$PROMPT"
    check "sudo -S -> the sensor was never armed" sensor_never_armed
    # No timed assertion (bench.sh measures speed): a helper waiting for a finger would keep the
    # command from running before finish's 15 s wait ends, and the sensor would be armed.
    start sudo "SSH_CONNECTION='203.0.113.9 50000 192.0.2.1 22' $SUDO_RUN"
    wait_for sudo "$SUDO_PW"
    type_line sudo "$TPASS"
    finish sudo
    check "SSH_CONNECTION in sudo's environment -> straight to the password" lacks "$PROMPT"
    check "SSH_CONNECTION -> the sensor was never armed" sensor_never_armed
    check "SSH_CONNECTION -> the password runs the command" ran
}
case_ "sudo: nobody to answer -> no fingerprint, within a second" sudo_nobody

sudo_askpass() {
    # sudo's conversation has no window for our prompt, so the module refuses sudo without a
    # terminal even where a display counts (pamtester below: service sudo with a display item).
    printf '#!/bin/sh\necho "%s"\n' "$TPASS" > "$W/u/askpass"
    chmod 0755 "$W/u/askpass"
    start sudo "SUDO_ASKPASS=$W/u/askpass setsid -w sudo -A touch $W/u/ran < /dev/null"
    finish sudo
    check "sudo -A with no terminal -> the askpass password runs the command" ran
    check "sudo -A with no terminal -> the sensor was never armed" sensor_never_armed
}
case_ "sudo with no terminal at all (sudo -A from a launcher, a script): no fingerprint" sudo_askpass

# su and login (SIGINT at its default in both) take the same three cases. The test user's shell
# is nologin: "This account is currently not available" is what proves the authentication.
AUTHENTICATED="This account is currently not available"
# ctrl_c WINDOW COMMAND: Ctrl-C at the prompt ends the program as at its password prompt.
ctrl_c() {
    names "$1" "$2" "$PROMPT" "$HINT" "$1 -> the fingerprint prompt with the hint"
    echo "#   ($1 after Ctrl-C: status $(cat "$W/u/rc" 2>/dev/null), said: $(tail -n 2 <<<"$OUT" | head -n 1))"
    check "$1 Ctrl-C -> ended by SIGINT, as at its password prompt (status 130)" rc_is 130
    check "$1 Ctrl-C -> not authenticated" lacks "$AUTHENTICATED"
    check "$1 Ctrl-C -> no password prompt" lacks "Password:"
    check "$1 Ctrl-C -> stty -g identical" stty_same
    check "$1 Ctrl-C -> no helper left" no_helper_left "$1"
}
# enter_then_password WINDOW COMMAND
enter_then_password() {
    start "$1" "$2"
    wait_for "$1" "$PROMPT"
    tm send-keys -t "t:$1" Enter
    wait_for "$1" "Password:"
    tm send-keys -t "t:$1" -l "$TPASS"
    tm send-keys -t "t:$1" Enter
    finish "$1"
    check "$1 Enter, then the password -> authenticated" has "$AUTHENTICATED"
    check "$1 Enter -> stty -g identical" stty_same
}
# finger WINDOW COMMAND
finger() {
    start "$1" "$2"
    wait_for "$1" "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null
    finish "$1"
    check "$1 finger -> authenticated, no password" has "$AUTHENTICATED"
    check "$1 finger -> no password prompt" lacks "Password:"
    check "$1 finger -> stty -g identical" stty_same
    check "$1 finger -> no helper left" no_helper_left "$1"
}
su_names() {
    names su "su $TUSER" "$PROMPT" "su wants to switch to the user $TUSER"
}
case_ "su: the prompt names the user" su_names

# three_ways WINDOW COMMAND LABEL: a client's three cases, Ctrl-C, Enter then the password, the finger.
three_ways() {
    case_ "$3: Ctrl-C" ctrl_c "$1" "$2"
    case_ "$3: Enter, then the password" enter_then_password "$1" "$2"
    case_ "$3: the finger" finger "$1" "$2"
}
three_ways su "su $TUSER" "su: Ctrl-C, Enter, the finger"

# signal_at_prompt WINDOW COMMAND HOST SIG: runs COMMAND and, once the fingerprint prompt is up,
# sends SIG to the helper's parent (HOST: su or sudo); the helper must go too. Root sends it (a
# user could not signal sudo: it runs as root).
signal_at_prompt() {
    local host_name=$3 sig=$4 host_pid  # (not `name`: check's own local would shadow it)
    start "$1" "$2"
    wait_for "$1" "$PROMPT"
    HPID=$(helper_pid "$1")
    host_pid=$(ps -o ppid= -p "$HPID" 2>/dev/null | tr -d ' ')
    check "(control) $host_name's helper found below it" \
        eval '[ -n "$HPID" ] && [ "$(cat /proc/$host_pid/comm 2>/dev/null)" = "$host_name" ]'
    kill -"$sig" "$host_pid"
    check "$host_name signalled with SIG$sig at the prompt -> its helper is gone too" eval '[ -n "$HPID" ] && wait_gone "$HPID"'
    finish "$1"
}
# su signalled while the prompt is up: the helper goes with it (a case for each signal).
# KILL ends su at once: the helper, in its own process group, is not signalled with it, and
# must not wait for a touch nobody asked for (PR_SET_PDEATHSIG); the terminal is then left in
# the prompt's mode (nobody can restore it; the case ends with `stty sane`). TERM and
# HUP are held back while the prompt is up (terminal.h, struct held_signals): the prompt ends,
# the terminal comes back, then su gets the signal and dies of it, as at its own prompt.
su_signalled() {  # su_signalled SIG
    local sig=$1
    signal_at_prompt su "su $TUSER" su "$sig"
    check "su signalled with SIG$sig at the prompt -> died of it (status $((128 + $(kill -l "$sig"))))" rc_is $((128 + $(kill -l "$sig")))
    check "...not authenticated" lacks "$AUTHENTICATED"
    [ "$sig" != KILL ] && check "...stty -g identical" stty_same
    tm send-keys -t t:su "stty sane" Enter
}
for sig in TERM HUP KILL; do
    case_ "su signalled with SIG$sig at the prompt: the helper goes with it" su_signalled "$sig"
done

# sudo signalled while the prompt is up: the helper goes with it, the command never runs (a case
# for each signal). sudo catches TERM and HUP: before they were held, the prompt stayed up with
# the sensor armed. The control: the same signal at sudo's own password prompt (after Enter).
sudo_signalled() {  # sudo_signalled SIG
    local sig=$1
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    tm send-keys -t t:sudo Enter
    wait_for sudo "$SUDO_PW"
    SPID=$(below sudo sudo)
    check "(control) sudo found at its own prompt" test -n "$SPID"
    kill -"$sig" "$SPID"
    finish sudo
    OWN_RC=$(cat "$W/u/rc"); OWN_SAID=$(screen sudo | grep '^sudo:' | tail -1)
    check "(control) SIG$sig at sudo's own password prompt -> the command did not run" eval '! ran'
    echo "#   (at sudo's own prompt: status $OWN_RC, said: $OWN_SAID)"
    signal_at_prompt sudo "$SUDO_RUN" sudo "$sig"
    check "sudo signalled with SIG$sig at the prompt -> the command did not run" eval '! ran'
    check "...sudo ends as at its own prompt (status $OWN_RC, '$OWN_SAID')" eval 'rc_is "$OWN_RC" && [ -n "$OWN_SAID" ] && has "$OWN_SAID"'
    check "...no password asked" lacks "$SUDO_PW"
    check "...stty -g identical" stty_same
}
for sig in TERM HUP; do
    case_ "sudo signalled with SIG$sig at the prompt: the helper goes with it, the command never runs" sudo_signalled "$sig"
done
sudo_killed() {
    signal_at_prompt sudo "$SUDO_RUN" sudo KILL
    check "sudo signalled with SIGKILL at the prompt -> the command did not run" eval '! ran'
    tm send-keys -t t:sudo "stty sane" Enter
}
case_ "sudo signalled with SIGKILL at the prompt: the helper goes with it, the command never runs" sudo_killed

# Whose login: shadow's (Debian 12) or util-linux's (13). Asked of dpkg, not of login: shadow's
# takes `login --version` for a user name and asks for its password.
if [ "$(dpkg-query -W -f='${source:Package}' login 2> /dev/null)" != util-linux ]; then
    # login (shadow's, run by root with the name given, as getty runs it): the same
    three_ways login "login $TUSER" "login (shadow's, run by root with the name given, as getty runs it)"
else
    # login (util-linux's, Debian 13's; exec'd with the name given, as getty leaves it): the same
    # util-linux's login hangs up its terminal (vhangup) before it asks: a shell that started it
    # dies of that SIGHUP (the window with it, and login is left an orphan). getty execs login,
    # so login is the terminal's session leader: it ignores that SIGHUP and opens the terminal
    # again. Here tests/e2e/getty.py does as getty does, on a terminal of its own (tmux reads
    # EIO while login has the terminal closed, and closes the window: login died of SIGHUP in
    # 1 run of 4). No `stty -g` after: the terminal ends with login (getty makes a new one).
    GETTY=0
    getty_start() {  # a new login: $G.out what it wrote, $G.in what is typed, $G.rc its end
        GETTY=$((GETTY + 1))
        G="$W/getty$GETTY"
        rm -f "$SOCK"
        mkfifo "$G.in"
        # In the tmux server's mount namespace: its /etc/pam.d/login is the test's.
        nsenter -t "$(tm display -p '#{pid}')" -m python3 "$E2E/getty.py" "$G" login "$TUSER" &
    }
    gscreen() { tr -d '\r' < "$G.out" 2> /dev/null; }
    gwait() {  # gwait TEXT: until login has written TEXT (10 s at most)
        local deadline=$(($(now_ms) + 10000))
        until gscreen | grep -qF -- "$1"; do [ "$(now_ms)" -lt "$deadline" ] || return 1; sleep 0.01; done
    }
    keys() { printf '%b' "$1" > "$G.in"; }
    getty_dead() { [ -s "$G.rc" ]; }
    getty_finish() {  # until login ended: OUT what it wrote, GETTY_RC how it ended
        wait_file "$G.rc" 15
        GETTY_RC=$(cat "$G.rc" 2> /dev/null)
        OUT=$(gscreen)
    }
    no_helper_at_all() { ! pgrep -x touchauth > /dev/null; }
    # to_password: a new login, Enter at our prompt, until its own password prompt.
    to_password() {
        getty_start
        gwait "$PROMPT"
        keys '\r'
        gwait "Password:"
    }
    # util-linux's login ignores SIGINT while it authenticates: at its own password prompt
    # Ctrl-C only discards the line. At ours the module sees the interrupt character as a key
    # (userCancel): a host that ignores SIGINT gets PAM_ABORT (pam_touchauth.c,
    # give_back_interrupt), and login ends with a failed login, as it does after its retries.
    login_enter_ctrl_c() {
        to_password
        keys '\003'
        sleep 1
        OUT=$(gscreen)
        check "(control) login ignores Ctrl-C at its own password prompt (still asking a second later)" eval '! getty_dead'
        keys "$TPASS\\r"
        getty_finish
        check "login Enter, then Ctrl-C and the password at its own prompt -> authenticated" has "$AUTHENTICATED"
        wait  # the getty.py of this login (ended)
    }
    case_ "login (util-linux's, Debian 13's): Enter, then Ctrl-C and the password at its own prompt" login_enter_ctrl_c
    login_ctrl_c() {
        getty_start
        gwait "$PROMPT"
        gwait "$HINT"
        OUT=$(gscreen)
        check "login -> the fingerprint prompt with the hint" has "$HINT"
        keys '\003'
        getty_finish
        echo "#   (login after Ctrl-C at the fingerprint prompt: $GETTY_RC, said: $(grep -v '^$' <<< "$OUT" | tail -n 1))"
        check "login Ctrl-C -> login ends (PAM_ABORT), not authenticated" eval 'getty_dead && lacks "$AUTHENTICATED"'
        check "login Ctrl-C -> no password prompt" lacks "Password:"
        check "login Ctrl-C -> no helper left" no_helper_at_all
        wait  # the getty.py of this login (ended)
    }
    case_ "login (util-linux's, Debian 13's): Ctrl-C at the fingerprint prompt" login_ctrl_c
    login_enter() {
        to_password
        keys "$TPASS\\r"
        getty_finish
        check "login Enter, then the password -> authenticated" has "$AUTHENTICATED"
        wait  # the getty.py of this login (ended)
    }
    case_ "login (util-linux's, Debian 13's): Enter, then the password" login_enter
    login_finger() {
        getty_start
        gwait "$PROMPT"
        python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null
        getty_finish
        check "login finger -> authenticated, no password" has "$AUTHENTICATED"
        check "login finger -> no password prompt" lacks "Password:"
        check "login finger -> no helper left" no_helper_at_all
        wait  # the getty.py of this login (ended)
    }
    case_ "login (util-linux's, Debian 13's): the finger" login_finger
    tm set-option -g remain-on-exit off > /dev/null
fi

# a closed lid, no reader outside it (pamtester, lid_dir pointing at a fake ACPI tree): the common
# setup of the lid's cases; each writes the lid's state it starts from.
# The helper judges the lid (docs/POLICY.md#the-lid-and-the-readers-at-hand: a reader on a removable USB port stays offered,
# tests/e2e/readers.sh): the virtual sensor has no such port here, so it is inside the lid.
MARKER="$T/helper-ran"
printf '#!/bin/sh\ntouch %s\necho "touchauth 1"\necho "result success"\n' "$MARKER" > "$T/marker-helper"
chmod 0755 "$T/marker-helper"
mkdir -p "$T/lid/LID0"
mkdir -m 0700 "$T/lid-state"  # (the trust rules off: with the lid open the finger is taken)
write_config "$T/lid.conf" "lid_dir=$T/lid" "state_dir=$T/lid-state" "password_after_boot=no" \
    "password_max_age=0" "password_after_enroll_change=no"
service lid "auth required $MODULE config=$T/lid.conf helper=$T/marker-helper debug"
service lid-real "auth required $MODULE config=$T/lid.conf helper=$HELPER debug"
service sudo "auth required $MODULE config=$T/lid.conf helper=$T/marker-helper debug"
service sudo-i "auth required $MODULE config=$T/lid.conf helper=$T/marker-helper debug"
lid_closed() {
    echo "state:      closed" > "$T/lid/LID0/state"
    pam lid-real "$TUSER" "" "SCAN tu-right-index"
    check "lid closed -> PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
    check "lid closed -> no prompt, the sensor never opened (no socket)" eval 'lacks "Place your finger" && test ! -S "$SOCK"'
    echo "state:      open" > "$T/lid/LID0/state"
    pam lid-real "$TUSER" "" "SCAN tu-right-index"
    check "(control) lid open -> the finger authenticates" succeeded
    pam lid "$TUSER" ""
    check "(control) lid open -> the helper runs" test -e "$MARKER"
    rm -f "$MARKER"
}
case_ "a closed lid, no reader outside it: the password, no sensor opened (pamtester, lid_dir pointing at a fake ACPI tree)" lid_closed
lid_ssh() {
    echo "state:      open" > "$T/lid/LID0/state"
    rm -f "$MARKER"
    SSH_CONNECTION="203.0.113.9 50000 192.0.2.1 22" pam lid "$TUSER" ""
    check "SSH_CONNECTION in pamtester's environment -> the helper never ran" test ! -e "$MARKER"
}
case_ "SSH_CONNECTION in pamtester's environment (the lid open): the helper never runs" lid_ssh

pamtester_sudo() {
    echo "state:      open" > "$T/lid/LID0/state"
    rm -f "$MARKER"
    # The module's own no-terminal branch for sudo: a display counts for other services, not for
    # sudo, whose conversation has no window for the prompt (pamtester as service "sudo", PAM_TTY :0).
    pam sudo "$TUSER" ""
    check "service sudo, no terminal, a display item -> the helper never ran" test ! -e "$MARKER"
    check "service sudo, no terminal -> PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
    # sudo -i runs the PAM service sudo-i (Debian): every sudo* service is sudo's conversation.
    pam sudo-i "$TUSER" ""
    check "service sudo-i (sudo -i), no terminal, a display item -> PAM_AUTHINFO_UNAVAIL, the helper never ran" \
        eval 'has "$MSG_UNAVAIL" && test ! -e "$MARKER"'
    pam lid "$TUSER" ""
    check "(control) the same stack as another service -> the helper runs" test -e "$MARKER"
    rm -f "$MARKER"
}
case_ "service sudo and sudo-i under pamtester (no terminal, a display item): no fingerprint" pamtester_sudo

# pamtester as a job of root's interactive shell: the foreground owns the terminal, a background
# job does not (three cases).
# A background job can open /dev/tty, its stdin is the terminal and tcgetattr works there, but it
# cannot read it: nobody types to it. The enrolled finger's touch is queued in every case; with
# SIGTTOU ignored, a module that took the terminal from the background would not even be stopped.
service job "auth required $MODULE config=$CONF debug"
PT_ENV="LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_DEBUGLEVEL=2 PAM_WRAPPER_SERVICE_DIR=$T/pam.d"
PT_CMD="env $PT_ENV pamtester -v job $TUSER authenticate"
# job_pt COMMAND: COMMAND typed in root's window (it leaves pamtester's output in pt.out, its
# status in pt.rc, a background job's pid in pt.pid), the touch queued; a job still there then
# is killed by that pid. Sets OUT.
job_pt() {
    local sender pid
    rm -f "$SOCK" "$W/u/pt.out" "$W/u/pt.rc" "$W/u/pt.pid"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null 2>&1 & sender=$!
    tm send-keys -t t:login "clear; $1" Enter
    wait_file "$W/u/pt.rc" 20
    kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null
    pid=$(cat "$W/u/pt.pid" 2>/dev/null)
    # (A job stopped by SIGTTOU ends the shell's wait with status 150 and stays.)
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = pamtester ]; then kill -KILL "$pid"; fi
    OUT="$(cat "$W/u/pt.out" 2>/dev/null)"$'\n'"(status $(cat "$W/u/pt.rc" 2>/dev/null))"
}
job_offered() {
    local bad=""
    has "$PROMPT" || bad+=" no-prompt"; [ -e "$SOCK" ] || bad+=" sensor-not-armed"
    succeeded || bad+=" not-authenticated"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected offered, got:$bad"; return 1; }
}
job_refused() {
    local bad=""
    has "$MSG_UNAVAIL" || bad+=" not-AUTHINFO_UNAVAIL"
    has "nobody at a terminal or a screen to answer" || bad+=" not-the-terminal-rule"
    lacks "$PROMPT" || bad+=" prompt-shown"; sensor_never_armed || bad+=" sensor-armed"
    succeeded && bad+=" AUTHENTICATED-by-the-touch"
    [ -z "$bad" ] || { OUT+=$'\n'"-> expected not offered, got:$bad"; return 1; }
}
job_foreground() {
    job_pt "$PT_CMD > $W/u/pt.out 2>&1; echo \$? > $W/u/pt.rc"
    check "(control) pamtester in the foreground, no items -> offered (prompt, sensor armed, the touch authenticates)" job_offered
}
case_ "pamtester as a job of root's interactive shell: the foreground owns the terminal" job_foreground
job_background() {
    job_pt "$PT_CMD > $W/u/pt.out 2>&1 & echo \$! > $W/u/pt.pid; wait \$!; echo \$? > $W/u/pt.rc"
    check "pamtester a background job (&) -> not offered, the module ends (PAM_AUTHINFO_UNAVAIL)" job_refused
}
case_ "pamtester as a job of root's interactive shell: a background job does not" job_background
job_background_ttou() {
    job_pt "(trap '' TTOU; exec $PT_CMD) > $W/u/pt.out 2>&1 & echo \$! > $W/u/pt.pid; wait \$!; echo \$? > $W/u/pt.rc"
    check "pamtester a background job ignoring SIGTTOU -> not offered (PAM_AUTHINFO_UNAVAIL)" job_refused
}
case_ "pamtester as a job of root's interactive shell: a background job ignoring SIGTTOU does not either" job_background_ttou

sudo_pam_rhost() {
    # (Rewritten in place: the bind mount holds this inode.) Nothing counts as "still local": a
    # name that resolves here is also where a tunnel arrives. Off by default on Debian.
    printf 'Defaults pam_rhost\n' >> "$T/sudoers"
    start sudo "$SUDO_RUN"
    wait_for sudo "$SUDO_PW"
    OUT=$(screen sudo)
    check "pam_rhost -> sudo asks for the password at once" has "$SUDO_PW"
    check "pam_rhost -> no fingerprint prompt" lacks "$PROMPT"
    check "pam_rhost -> the sensor was never armed" sensor_never_armed
    type_line sudo "$TPASS"
    finish sudo
    check "pam_rhost -> the password runs the command" ran
    grep -v '^Defaults pam_rhost$' "$T/sudoers" > "$T/sudoers.new"; cat "$T/sudoers.new" > "$T/sudoers"
}
case_ "sudo with 'Defaults pam_rhost' (PAM_RHOST = this host's name): a remote host like any other" sudo_pam_rhost

[ -z "${ENTER_MS:-}${S_MS:-}" ] || echo "# measured: Enter -> sudo's password prompt ${ENTER_MS:--} ms; sudo -S round trip ${S_MS:--} ms"
tm kill-server
check "(cleanup) the tmux server (the namespace's last process) is gone" sh -c "! tmux -S '$TMUX_SOCK' ls 2>/dev/null"
check "(cleanup) the real /etc/pam.d/sudo was never changed" test "$(sha256sum < /etc/pam.d/sudo)" = "$PAM_SUDO_SUM"
summary