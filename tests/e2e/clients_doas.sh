#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# doas (OpenDoas, Debian's opendoas, PAM service "doas") for real, in tmux, as a test user with a
# password, in a private mount namespace: an overlay over /etc gives it our /etc/pam.d/doas and a
# /etc/doas.conf of ours (the machine's /etc is never written). The finger, Enter then the
# password, the password typed at the prompt, Ctrl-C, a locked user, a wrong finger three
# times; each case's sensor socket says whether the sensor was armed (ttykit.sh).
source "$(dirname "$0")/../../scripts/lib.sh"
source "$(dirname "$0")/lib.sh"

for tool in tmux unshare setpriv; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
ensure_packages_no_start opendoas || { echo "cannot install opendoas"; echo "0 passed, 1 failed"; exit 1; }

make_user "$TUSER" "$TPASS"
CONF="$T/touchauth.conf"
S=$(mktemp -d /tmp/touchauth-doas-state.XXXXXX); chmod 0755 "$S"
STATE_DIR="$S/state" TTY_CLEANUP="$S"
source "$E2E/ttykit.sh"
conf
enroll "$TUSER" right-index-finger tu-right-index

# /etc as the machine has it, with our doas.conf and pam.d/doas on top (overlayfs, this
# namespace only): doas.conf must be root's and not writable by others, as doas checks.
mkdir -p "$T/etc-up/pam.d" "$T/etc-work"
printf 'permit %s as root\n' "$TUSER" > "$T/etc-up/doas.conf"
# pam_exec first: its marker proves that doas entered pam_authenticate at all.
printf '%s\n' "auth optional pam_exec.so quiet /usr/bin/touch $W/u/reached" \
    "auth [success=done abort=die default=ignore] $MODULE config=$CONF debug" \
    "auth required pam_unix.so try_first_pass nodelay" "account required pam_permit.so" \
    "session required pam_permit.so" > "$T/etc-up/pam.d/doas"
chmod 0644 "$T/etc-up/doas.conf" "$T/etc-up/pam.d/doas"
unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc &&
    exec tmux -S "$3" -f /dev/null new-session -d -s t -n doas -x 160 -y 50 "$4"' \
    sh "$T/etc-up" "$T/etc-work" "$TMUX_SOCK" "$(shell_as "$TUSER")"
tm set-option -g history-limit 0 > /dev/null

PROMPT="Place your finger on the fingerprint reader"
HINT="[Enter Password] press Enter, or type your password"
DOAS_PW="doas ($TUSER@"   # doas's own prompt: "doas (user@host) password: "
RUN="doas touch $W/u/ran"
# password_at_doas: once doas asks for its password, type it; then the case's end.
password_at_doas() {
    wait_for doas "$DOAS_PW"
    type_line doas "$TPASS"
    finish doas
}
# (set_state, fresh_state, never_armed: tests/e2e/kit/state.sh, in the helper's state dir)
STATE="$S/state" TUID=$(id -u "$TUSER")

doas_finger() {
    fresh_state
    start doas "$RUN"
    wait_for doas "$HINT"
    check "(control) the helper runs under doas while the prompt is up" helper_alive doas
    check "the prompt and the hint reach the terminal (doas relays PAM_TEXT_INFO)" eval 'OUT=$(screen doas); has "$PROMPT" && has "$HINT"'
    check "the prompt names what the touch approves (from doas's argv)" has "doas wants to run as root: touch $W/u/ran"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null
    finish doas
    check "finger -> the command ran, status 0" eval 'ran && rc_is 0'
    check "finger -> no password asked" lacks "$DOAS_PW"
    check "finger -> stty -g identical" stty_same
    check "finger -> no helper left" no_helper_left doas
}
case_ "doas: the enrolled finger" doas_finger

doas_enter() {
    fresh_state
    start doas "$RUN"
    wait_for doas "$PROMPT"
    tm send-keys -t t:doas Enter
    wait_for doas "$DOAS_PW"
    check "Enter -> the sensor is released before doas asks (no helper left)" no_helper_left doas
    type_line doas "$TPASS"
    finish doas
    check "Enter, then the password -> the command ran" eval 'ran && rc_is 0'
    check "Enter -> stty -g identical" stty_same
}
case_ "doas: Enter, then doas's own password prompt" doas_enter

doas_typed() {
    fresh_state
    start doas "$RUN"
    wait_for doas "$PROMPT"
    type_line doas "$TPASS"
    finish doas
    check "typed at the prompt -> the command ran (pam_unix try_first_pass took it)" eval 'ran && rc_is 0'
    check "typed at the prompt -> doas did not ask again" lacks "$DOAS_PW"
    check "typed at the prompt -> not echoed" lacks "$TPASS"
    check "typed at the prompt -> stty -g identical" stty_same
}
case_ "doas: the password typed at the fingerprint prompt" doas_typed

# At doas's own prompt Ctrl-C is SIGINT to the foreground group (readpassphrase leaves ISIG on):
# doas dies of it. At ours it is a byte; doas leaves SIGINT at its default, so the module gives
# it back once the terminal is restored (pam_touchauth.c, give_back_interrupt): doas dies of
# SIGINT, status 130, as there.
doas_ctrl_c() {
    fresh_state
    start doas "$RUN"
    wait_for doas "$PROMPT"
    tm send-keys -t t:doas C-c
    finish doas
    check "Ctrl-C -> the command did not run, doas ended by SIGINT (status 130)" eval '! ran && rc_is 130'
    check "Ctrl-C -> no password prompt" lacks "$DOAS_PW"
    check "Ctrl-C -> stty -g identical" stty_same
    check "Ctrl-C -> no helper left" no_helper_left doas
}
case_ "doas: Ctrl-C at the fingerprint prompt" doas_ctrl_c

doas_wrong() {
    fresh_state
    start doas "$RUN"
    wait_for doas "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN someone-else" "SCAN someone-else" "SCAN someone-else" > /dev/null
    password_at_doas
    check "3 wrong -> 'try again' twice, then doas's password prompt" \
        eval 'test "$(count_of "Not recognized, try again")" -eq 2 && has "$DOAS_PW"'
    check "...and the password runs the command" eval 'ran && rc_is 0'
    fresh_state
}
case_ "doas: three wrong fingers, then the password" doas_wrong

doas_locked() {
    set_state 5 "$(date +%s)" - - -   # five strikes, locked now
    start doas "$RUN"
    password_at_doas
    check "locked -> our line says why, then doas's password prompt" \
        eval 'has "Too many failed attempts. Enter your password to use your fingerprint again." && has "$DOAS_PW"'
    check "locked -> the sensor was never armed" never_armed
    check "locked -> the password runs the command" eval 'ran && rc_is 0'
    fresh_state   # (not locked for what follows)
}
case_ "doas: a locked user gets the password at once, the sensor never opened" doas_locked

doas_no_terminal() {
    fresh_state
    rm -f "$W/u/reached"
    start doas "setsid -w doas touch $W/u/ran < /dev/null > /dev/null 2>&1"
    finish doas
    check "(control) doas entered pam_authenticate" test -e "$W/u/reached"
    check "no terminal -> the sensor was never armed, nothing ran" eval 'never_armed && ! ran && ! rc_is 0'
}
case_ "doas with no terminal (setsid, stdin /dev/null): nobody can answer, no sensor" doas_no_terminal
summary
