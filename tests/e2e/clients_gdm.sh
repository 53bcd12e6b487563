#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GDM's two-stack login (the clients issue). GDM cannot run here (it needs a running systemd), so
# clients/gdmworker.c drives the `gdm-password` and `gdm-fingerprint` PAM services the way GDM 43
# (Debian 12's gdm3) does: one worker process per conversation, both at once, PAM_TTY
# /dev/tty1 (the login VT) and PAM_RHOST only for a remote display, pam_authenticate,
# pam_acct_mgmt, pam_setcred; when one conversation has verified the user the daemon stops the
# other worker with SIGTERM, and the worker's handler `_exit`s on the spot (read the top of
# gdmworker.c). Real libpam under pam_wrapper, the real pam_unix, libfprint's virtual sensor,
# and a fake logind (TESTING.md) whose seat0 shows a greeter session: the workers run outside
# any session, as gdm.service's do.
#
# The stacks: gdm-fingerprint is examples/pam.d/gdm-fingerprint's auth lines (the module path
# and `config=... debug` added), gdm-password is Debian's (pam_nologin, pam_succeed_if,
# common-auth as pam-auth-update writes it with the touchauth-unlock profile: pam_unix, then the
# authsucc line). "Armed" is judged by the virtual sensor's socket, as in the other suites; "no
# armed sensor behind" by whether anyone still listens on it.
source "$(dirname "$0")/../../scripts/lib.sh"
ensure_packages pamtester libpam-wrapper libpam-modules libsystemd0 python3 util-linux
source "$(dirname "$0")/lib.sh"
STARTED=$(date +%s)

CG=$(cgroup2_dir) || { echo "no cgroup2 hierarchy"; echo "0 passed, 1 failed"; exit 1; }
source "$E2E/kit/gdm.sh"   # the test user and GDM's two stacks, as clients_gnome.sh has them

gdm_user

# --- the two stacks (tests/e2e/kit/gdm.sh) ----------------------------------------------------
gdm_stacks "$T/pam.d"
gdm_stacks "$T/pam.d-norecord" norecord
gdm_example_line "$T/pam.d"

# --- the fake logind (tests/e2e/kit/logind.sh) ----------------------------------------------
# logind_greeter TYPE: seat0's active session c1 is GDM's greeter (class greeter, local, TYPE x11
# or wayland). logind_console: seat0's active session is someone's text login (no greeter in
# front). logind_none: this VM's state (no seat0: logind not running).
RS="$T/rs"
LOGIND=$RS
GREETER_UID=$(id -u nobody)
logind_greeter() { logind_front c1 "$GREETER_UID" CLASS=greeter TYPE="$1" VTNR=1; }
logind_console() { logind_front 3 0 VTNR=1; }

# The daemon's surroundings: a private mount namespace whose /run/systemd is $RS, the cgroup
# root (outside any session, like gdm.service), no controlling terminal, pam_wrapper.
cat > "$T/run-in" <<'EOF'
#!/bin/sh
rs=$1 cg=$2
shift 2
exec unshare -m --propagation private sh -c '
    mount --bind "$1" /run/systemd || exit 125
    echo $$ > "$2/cgroup.procs" || exit 125
    shift 2; exec "$@"' sh "$rs" "$cg" "$@"
EOF
chmod 0755 "$T/run-in"
gdm_worker "$T/gdmworker"

ANSWER="$T/answer"     # the password field: gdm-password's worker reads its answer here
mkfifo -m 0600 "$ANSWER"
GDM=""
# gdm_start [gdmworker -I options...]: both conversations for $TUSER in the background; the
# password worker's prompt waits on $ANSWER. GDM_PAMD picks the service directory.
gdm_start() {
    rm -f "$SOCK"
    : > "$T/gdm.out"
    setsid -w timeout 60 "$T/run-in" "$RS" "$CG" env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \
        "PAM_WRAPPER_SERVICE_DIR=${GDM_PAMD:-$T/pam.d}" PAM_WRAPPER_DEBUGLEVEL=2 \
        "$T/gdmworker" "$@" "$TUSER" "gdm-password=$ANSWER" gdm-fingerprint < /dev/null > "$T/gdm.out" 2>&1 &
    GDM=$!
}
# gdm_wait TEXT [SECONDS]: until the client printed TEXT.
gdm_wait() {
    local deadline=$(($(now_ms) + ${2:-10} * 1000))
    until grep -qF -- "$1" "$T/gdm.out"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.02
    done
}
# type_password [PASSWORD]: the user types into the password field (bounded: nobody may read).
type_password() { timeout 10 sh -c 'printf "%s\n" "$1" > "$2"' sh "${1:-$TPASS}" "$ANSWER"; }
# gdm_end: waits for the client (15 s at most), OUT = what it printed, RC its status.
gdm_end() {
    local _
    for _ in $(seq 750); do kill -0 "$GDM" 2>/dev/null || break; sleep 0.02; done
    kill "$GDM" 2>/dev/null
    wait "$GDM"; RC=$?
    GDM=""
    OUT=$(grep -v '^PWRAP_\(TRACE\|DEBUG\).*\(Copy\|Lookup\|Unlink\|LD_PRELOAD\|PAM_WRAPPER\)' "$T/gdm.out")
}
pid_of_worker() { sed -n "s/^gdm: worker for $1 started, pid \([0-9]*\)$/\1/p" "$T/gdm.out"; }
gone() { local st; st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null); [ -z "$st" ] || [ "$st" = Z ]; }
wait_gone() { local _; for _ in $(seq 150); do gone "$1" && return 0; sleep 0.02; done; return 1; }
fp_says() { grep -qF -- "[gdm-fingerprint] $1" <<< "$OUT"; }
pw_says() { grep -qF -- "[gdm-password] $1" <<< "$OUT"; }
# (armed, never_armed, set_state, strikes, fresh_state: tests/e2e/kit/state.sh; listening,
# touch_sensor: kit/gdm.sh)
ms_of() { sed -n "s/^\[$1\] $2.* (\([0-9]*\) ms)$/\1/p" <<< "$OUT" | head -n 1; }
MSG_SUCCESS="authenticate: Success"

cleanup() {
    [ -n "$GDM" ] && kill "$GDM" 2>/dev/null
    [ -n "${SENDER:-}" ] && kill "$SENDER" 2>/dev/null
    wait 2>/dev/null
    return 0
}
trap 'cleanup; rm -rf "$T"' EXIT

# =============================================================================================
# a. the finger logs in (greeter on Wayland: GDM sets PAM_TTY=/dev/tty1 only)
a_finger() {
    logind_greeter wayland
    fresh_state
    gdm_start
    gdm_wait "[gdm-fingerprint] info: $PROMPT"
    check "a. gdm-fingerprint shows our prompt" grep -qF "[gdm-fingerprint] info: $PROMPT" "$T/gdm.out"
    check "a. ...the sensor is armed" armed
    touch_sensor "$FINGER"
    gdm_end
    sensor_stop
    check "a. the finger: gdm-fingerprint's pam_authenticate is PAM_SUCCESS, its account phase too" \
        eval 'fp_says "$MSG_SUCCESS" && fp_says "account: Success"'
    check "a. ...the password field was up meanwhile (gdm-password at pam_unix's prompt)" pw_says "prompt: Password:"
    check "a. ...no hint to press Enter (fallback_title= in the example: the password field is there)" \
        lacks "Enter Password"
    check "a. ...GDM logs in by gdm-fingerprint and stops gdm-password with SIGTERM (its handler: exit 0)" \
        eval 'has "gdm: logged in by gdm-fingerprint" && has "gdm: gdm-password stopped: exit status 0" && [ "$RC" = 0 ]'
    check "a. ...no strike (a match)" test "$(strikes)" = 0
    echo "#   a. prompt after $(ms_of gdm-fingerprint "info: $PROMPT") ms; verified after $(ms_of gdm-fingerprint "$MSG_SUCCESS") ms"
}
case_ "a. the finger logs in (greeter on Wayland: GDM sets PAM_TTY=/dev/tty1 only)" a_finger

# =============================================================================================
# b. the password while the finger waits; GDM then stops the fingerprint worker
b_password() {
    local fp_worker fp_helper pw_ms
    logind_greeter x11
    fresh_state
    gdm_start
    gdm_wait "[gdm-fingerprint] info: $PROMPT"
    for _ in $(seq 250); do listening && break; sleep 0.02; done
    fp_worker=$(pid_of_worker gdm-fingerprint)
    fp_helper=$([ -n "$fp_worker" ] && pgrep -P "$fp_worker" -x touchauth)
    OUT="worker ${fp_worker:-?}, helper ${fp_helper:-none}"
    check "b. the fingerprint worker's helper waits at the armed sensor" eval '[ -n "$fp_helper" ] && listening'
    type_password
    gdm_end
    pw_ms=$(ms_of gdm-password "$MSG_SUCCESS")
    check "b. the password: gdm-password's pam_authenticate is PAM_SUCCESS" pw_says "$MSG_SUCCESS"
    check "b. ...GDM logs in by gdm-password and stops gdm-fingerprint with SIGTERM mid-prompt" \
        eval 'has "gdm: logged in by gdm-password" && has "gdm: stopping gdm-fingerprint" && has "gdm: gdm-fingerprint stopped: exit status 0"'
    check "b. ...gdm-fingerprint never returned (it was stopped inside pam_authenticate)" \
        eval '! fp_says "authenticate:"'
    OUT="helper ${fp_helper:-none}: $([ -n "$fp_helper" ] && grep -E '^(Name|State|PPid)' "/proc/$fp_helper/status" 2>/dev/null)"
    check "b. ...no helper behind: the fingerprint helper is gone (its parent-death signal)" \
        eval '[ -n "$fp_helper" ] && wait_gone "$fp_helper"'
    OUT="socket: $(ls -l "$SOCK" 2>&1)"
    check "b. ...and no armed sensor: nobody listens on the sensor's socket" eval '! listening'
    OUT="state: $(cat "$STATE/$TUID" 2>/dev/null | tr '\n' ' ')"
    check "b. ...no strike left (the scan's charge, cleared by the password's authsucc line before the stop)" \
        test "$(strikes)" = 0
    echo "#   b. password verified after ${pw_ms} ms (from the start of both conversations)"
}
case_ "b. the password while the finger waits; GDM then stops the fingerprint worker" b_password

# The same without the authsucc line in gdm-password: the stopped worker's helper gets SIGTERM as
# its parent-death signal (Termination.swift), cancels the scan and gives its charge
# back. Before, it died by the module's parent-death SIGKILL with the charge on disk: each
# password login while the finger waited cost a strike, five locked the finger (NOTES.md).
b_norecord() {
    local fp_helper
    logind_greeter x11
    fresh_state
    GDM_PAMD="$T/pam.d-norecord" gdm_start
    gdm_wait "[gdm-fingerprint] info: $PROMPT"
    for _ in $(seq 250); do listening && break; sleep 0.02; done
    fp_helper=$(pgrep -P "$(pid_of_worker gdm-fingerprint)" -x touchauth)
    type_password
    gdm_end
    check "b. without gdm-password's authsucc line: logged in by the password" has "gdm: logged in by gdm-password"
    check "b. ...the stopped worker's helper is gone" eval '[ -n "$fp_helper" ] && wait_gone "$fp_helper"'
    OUT="state: $(cat "$STATE/$TUID" 2>/dev/null | tr '\n' ' ')"
    check "b. ...and gave its charge back: no strike (the helper's parent-death SIGTERM, not SIGKILL)" \
        test "$(strikes)" = 0
}
case_ "b. the password while the finger waits, gdm-password without the authsucc line" b_norecord

# =============================================================================================
# c. three wrong fingers, then the password
c_wrong() {
    logind_greeter wayland
    fresh_state
    gdm_start
    gdm_wait "[gdm-fingerprint] info: $PROMPT"
    touch_sensor "$ELSE" "$ELSE" "$ELSE"
    gdm_wait "[gdm-fingerprint] authenticate:" 15
    sensor_stop
    OUT=$(cat "$T/gdm.out")
    check "c. wrong fingers: 'Not recognized, try again' twice, then 'Fingerprint not recognized' (error messages)" \
        eval '[ "$(count_of "[gdm-fingerprint] error: Not recognized, try again")" = 2 ] && fp_says "error: Fingerprint not recognized"'
    check "c. ...gdm-fingerprint ends in PAM_MAXTRIES (required: its stack fails)" fp_says "authenticate: $MSG_MAXTRIES"
    check "c. ...GDM goes on with the password field" has "gdm: gdm-fingerprint did not verify the user"
    check "c. ...three strikes recorded" test "$(strikes)" = 3
    type_password
    gdm_end
    check "c. the password then logs in (gdm-password PAM_SUCCESS)" \
        eval 'pw_says "$MSG_SUCCESS" && has "gdm: logged in by gdm-password" && [ "$RC" = 0 ]'
    check "c. ...and clears the strikes (authsucc)" test "$(strikes)" = 0
}
case_ "c. three wrong fingers, then the password" c_wrong

# A wrong password first: gdm-password fails, the finger's conversation is not disturbed.
c_wrong_password() {
    logind_greeter wayland
    fresh_state
    gdm_start
    gdm_wait "[gdm-fingerprint] info: $PROMPT"
    type_password "wrong password"
    gdm_wait "gdm: gdm-password did not verify the user"
    check "c. a wrong password: gdm-password fails, the sensor still armed for the finger" \
        eval 'grep -qF "[gdm-password] authenticate: $MSG_AUTHERR" "$T/gdm.out" && listening'
    touch_sensor "$FINGER"
    gdm_end
    sensor_stop
    check "c. ...then the finger logs in" eval 'has "gdm: logged in by gdm-fingerprint" && [ "$RC" = 0 ]'
}
case_ "c. a wrong password first, then the finger" c_wrong_password

# =============================================================================================
# d. a locked user: our message at once, and the password
d_locked() {
    logind_greeter wayland
    set_state 5 "$(($(date +%s) - 60))"
    gdm_start
    touch_sensor "$FINGER"     # a touch queued: it must let nobody in
    gdm_wait "[gdm-fingerprint] authenticate:" 10
    OUT=$(cat "$T/gdm.out")
    check "d. gdm-fingerprint shows our lockout message" fp_says "info: $LOCKED"
    check "d. ...and ends at once in PAM_AUTHINFO_UNAVAIL, without the finger prompt" \
        eval 'fp_says "authenticate: $MSG_UNAVAIL" && ! fp_says "info: $PROMPT"'
    check "d. ...the sensor was never armed" never_armed
    echo "#   d. locked: the message after $(sed -n 's/^\[gdm-fingerprint\] authenticate:.* (\([0-9]*\) ms)$/\1/p' "$T/gdm.out") ms"
    type_password
    gdm_end
    sensor_stop
    check "d. the password logs in" eval 'pw_says "$MSG_SUCCESS" && has "gdm: logged in by gdm-password"'
    check "d. ...and lifts the lockout (authsucc)" test "$(strikes)" = 0
}
case_ "d. a locked user: our message at once, and the password" d_locked

# =============================================================================================
# e. nobody at a greeter, or a remote display: never armed
# e_case FRONT WHY [gdmworker options...]: seat0 as FRONT says (greeter: GDM's greeter on x11;
# console: a text login active; none: no logind, as this VM), a touch queued, the password typed
# at once; the fingerprint must not be offered, the password logs in. GDM's PAM_TTY is
# /dev/tty1, and that VT is on screen (the text login's VTNR=1): the module gets past the VT
# rule to the one these cases are about.
e_case() {
    local front=$1 why=$2; shift 2
    vt_on_screen tty1
    case $front in
        greeter) logind_greeter x11 ;;
        console) logind_console ;;
        none) logind_none ;;
    esac
    fresh_state
    gdm_start "$@"
    touch_sensor "$FINGER"
    gdm_wait "[gdm-fingerprint] authenticate:" 10
    type_password
    gdm_end
    sensor_stop
    check "$CASE: gdm-fingerprint PAM_AUTHINFO_UNAVAIL, no prompt" \
        eval 'fp_says "authenticate: $MSG_UNAVAIL" && ! fp_says "info: $PROMPT"'
    check "$CASE: ...the sensor was never armed (the touch let nobody in)" \
        eval 'never_armed && ! has "gdm: gdm-fingerprint verified"'
    check "$CASE: ...the module says why: $why" has "$why"
    check "$CASE: ...the password logs in" has "gdm: logged in by gdm-password"
}
case_ "e. remote display (XDMCP: PAM_RHOST)" e_case greeter "remote session (PAM_RHOST is set)" -I rhost=192.0.2.7
case_ "e. no greeter in front (a text login active on seat0)" e_case console "nobody at a terminal or a screen to answer"
case_ "e. no logind at all (this VM), PAM_TTY=/dev/tty1 only" e_case none "nobody at a terminal or a screen to answer"

# =============================================================================================
OUT=$(ps -eo pid,ppid,comm | awk '$3 == "gdmworker" || $3 == "touchauth"')
check "(cleanup) no gdmworker or helper of ours left" eval '! pgrep -x gdmworker > /dev/null'
echo "# run time $(($(date +%s) - STARTED)) s"
summary
