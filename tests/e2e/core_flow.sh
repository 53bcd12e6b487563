#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The core flow (issue 2): pamtester -> pam_touchauth.so -> touchauth -> libfprint's virtual
# sensor -> PAM code, with pam_unix.so and a real password behind it.
# The common setup (the users, the services, the enrolled right index finger, a marker helper)
# is shared; each case (case_ of lib.sh) starts from a fresh state file, so it passes alone and
# `scripts/test.sh core:REGEX` runs only the cases it picks.
source "$(dirname "$0")/lib.sh"

make_user "$TUSER" "$TPASS"
make_user "$NOPRINTS_USER" "$TPASS"
TUID=$(id -u "$TUSER")   # (fresh_state: tests/e2e/kit/state.sh, whose STATE is $T/state)
# The attempt itself is under test here: the lockout and the trust rules (tests/e2e/lockout.sh)
# are kept out of its way.
NO_RULES=("state_dir=$T/state" "lockout_threshold=1000" "password_after_boot=no" "password_max_age=0"
          "password_after_enroll_change=no")
write_config "$T/touchauth.conf" "${NO_RULES[@]}"
ARGS="config=$T/touchauth.conf helper=$HELPER debug"
# touchauth alone: its own PAM code shows in pamtester's verdict.
service solo "auth required $MODULE $ARGS"
# The recommended stack: fingerprint, else the password.
service full "auth [success=done default=ignore] $MODULE $ARGS" \
             "auth required pam_unix.so nodelay"

# The enrolment: every case below uses its print.
enroll "$TUSER" right-index-finger tu-right-index
check "enroll stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"
OUT=$(cat "$T/enroll.out")
check "enroll shows progress" has "stage 5/5"
# The marker helper (the cases about who gets no helper): it leaves $MARKER when it runs.
MARKER="$T/helper-ran"
printf '#!/bin/sh\ntouch %s\necho "touchauth 1"\necho "result success"\n' "$MARKER" > "$T/marker-helper"
chmod 0755 "$T/marker-helper"
service marker "auth required $MODULE config=$T/touchauth.conf helper=$T/marker-helper debug"
service marker-full "auth [success=done default=ignore] $MODULE config=$T/touchauth.conf helper=$T/marker-helper" \
                    "auth required pam_unix.so nodelay"

enrolled_finger() {
    fresh_state
    pam full "$TUSER" "" "SCAN tu-right-index"
    check "enrolled finger -> PAM_SUCCESS" succeeded
    check "the prompt was shown" has "Place your finger on the fingerprint reader"
    check "the fallback hint was shown (no terminal: the timeout)" has "[Enter Password] after 30 s"
    check "no password was asked" no_password_prompt
}
case_ "the enrolled finger" enrolled_finger

three_wrong() {
    fresh_state
    pam solo "$TUSER" "" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "wrong x3 -> touchauth returns PAM_MAXTRIES" has "$MSG_MAXTRIES"
    check "'Not recognized, try again' shown twice" test "$(count_of "Not recognized, try again")" -eq 2
    check "the final 'not recognized' shown" has "Fingerprint not recognized"
    pam full "$TUSER" "$TPASS" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "wrong x3 then the right password -> success" succeeded
    check "the password was asked after the fingerprint" grep -q "^Password: " "$T/out"
    pam full "$TUSER" "wrong password" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "wrong x3 then a wrong password -> failure" has "$MSG_AUTHERR"
    check "...and never success" lacks "successfully authenticated"
}
case_ "three wrong fingers" three_wrong

# pamtester answers the module's one question with its first line, as i3lock answers with what
# was typed before Enter (clients_lockers.sh runs the real i3lock).
service i3lock "auth [success=done default=ignore] $MODULE $ARGS" \
               "auth required pam_unix.so try_first_pass nodelay"
questions() { grep -c "Password: " "$T/out"; }
locker_first() {
    fresh_state
    pam i3lock "$TUSER" "$TPASS" "SCAN tu-right-index"
    check "i3lock, a typed password -> success on one question: the module's, its answer handed to pam_unix" \
        eval 'succeeded && [ "$(questions)" = 1 ]'
    check "...no prompt of ours, the sensor not offered" lacks "Place your finger"
    PAM_WRAPPER_DEBUGLEVEL=2 pam i3lock "$TUSER" "wrong password" "SCAN tu-right-index"
    check "i3lock, a wrong typed password -> failure, never the finger" \
        eval 'has "$MSG_AUTHERR" && lacks "successfully authenticated" && lacks "Place your finger"'
    # (pam_wrapper at debug level 2: the module's syslog lines on pamtester's stderr.)
    check "...the module's audit line says userFallback: the typed answer set it (a verdict left as it started is systemCancel)" \
        grep -q "user $TUSER, service i3lock: userFallback, strikes -" <<<"$OUT"
    pam i3lock "$TUSER" "" "SCAN tu-right-index"
    check "i3lock, an empty answer -> the finger: success, no second question" \
        eval 'succeeded && [ "$(questions)" = 1 ] && has "Place your finger"'
    pam i3lock "$TUSER" "" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "i3lock, an empty answer and three wrong fingers -> pam_unix asks (the locker answers its buffer)" \
        eval 'lacks "successfully authenticated" && [ "$(questions)" = 2 ]'
    PAM_NO_DISPLAY=1 pam i3lock "$TUSER" "" "SCAN tu-right-index"
    check "i3lock with no PAM_TTY (as swaylock), no terminal, no logind: the empty answer is the person -> the finger" \
        succeeded
    printf '#!/bin/sh\nexec "$@" < /dev/null\n' > "$T/no-stdin"; chmod 0755 "$T/no-stdin"
    PAM_RUNNER="$T/no-stdin" pam i3lock "$TUSER" "" "SCAN tu-right-index"
    check "i3lock, no answer at all (end of input: no reply) -> never the finger; asked by us, then by pam_unix; not authenticated" \
        eval 'lacks "successfully authenticated" && lacks "Place your finger" && [ "$(questions)" = 2 ]'
    pam i3lock "$NOPRINTS_USER" "$TPASS"
    check "i3lock, a user with no prints -> not asked by us: pam_unix's question alone" \
        eval 'succeeded && [ "$(questions)" = 1 ]'
}
case_ "a locker that reads the password first (service i3lock): the module asks it first" locker_first

retry_hint() {
    fresh_state
    pam solo "$TUSER" "" "RETRY 2" "SCAN tu-right-index"
    check "RETRY then the right finger -> success" succeeded
    check "one hint shown" test "$(count_of "Centre your finger")" -eq 1
    check "no strike counted" lacks "Not recognized"
    pam solo "$TUSER" "" "SCAN stranger" "RETRY 1" "SCAN stranger" "RETRY 0" "SCAN stranger"
    check "retries between wrong fingers do not add tries" has "$MSG_MAXTRIES"
    check "...and 2 'try again' for 3 strikes" test "$(count_of "Not recognized, try again")" -eq 2
}
case_ "a retry condition is a hint, not a strike" retry_hint

two_prints() {
    fresh_state
    enroll "$TUSER" left-index-finger tu-left-index
    pam solo "$TUSER" "" "SCAN tu-right-index" "SCAN tu-right-index"
    check "second print matches on the second scan" succeeded
    check "the prompt names the finger expected first" has "Place your left index finger"
    check "...and then the next one" has "Place your right index finger"
    rm -f "$T/prints/$TUSER/virtual_device/0/2"
}
case_ "several fingers on a sensor that cannot identify: each print in turn, named" two_prints

no_prints() {
    fresh_state
    rm -f "$MARKER"
    pam marker "$NOPRINTS_USER" ""
    check "no prints -> PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
    check "no prints -> the helper never ran" test ! -e "$MARKER"
    pam marker-full "$NOPRINTS_USER" "$TPASS"
    check "no prints -> the password authenticates" succeeded
    check "no prints -> no fingerprint prompt" lacks "Place your finger"
    # The marker helper does run when prints exist: the marker proves what it should.
    pam marker "$TUSER" ""
    check "(control) with prints the marker helper runs" test -e "$MARKER"
    rm -f "$MARKER"
}
case_ "a user with no prints: no helper is spawned" no_prints

remote() {
    fresh_state
    rm -f "$MARKER"
    PAM_ITEMS="-I rhost=203.0.113.9" pam marker "$TUSER" ""
    check "remote rhost -> PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
    check "remote rhost -> the helper never ran" test ! -e "$MARKER"
    # Issue 11: loopback is where tunnels and onion services arrive, so localhost is remote too
    # (this check said "(control) rhost=localhost counts as local: the helper runs" before).
    PAM_ITEMS="-I rhost=localhost" pam marker "$TUSER" ""
    check "rhost=localhost is a network login too: the helper never ran" test ! -e "$MARKER"
    PAM_ITEMS="-I rhost=" pam marker "$TUSER" ""
    check "(control) an empty rhost (login's) is local: the helper runs" test -e "$MARKER"
    rm -f "$MARKER"
}
case_ "a remote session: no helper is spawned" remote

no_sensor() {
    fresh_state
    write_config "$T/nosensor.conf" "${NO_RULES[@]}"
    sed -i '/^virtual_device/d' "$T/nosensor.conf"
    service nosensor "auth required $MODULE config=$T/nosensor.conf helper=$HELPER"
    service nosensor-full "auth [success=done default=ignore] $MODULE config=$T/nosensor.conf helper=$HELPER" \
                          "auth required pam_unix.so nodelay"
    pam nosensor "$TUSER" ""
    check "no sensor -> PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
    pam nosensor-full "$TUSER" "$TPASS"
    check "no sensor -> the password authenticates" succeeded
    check "no sensor -> no fingerprint prompt" lacks "Place your finger"
}
case_ "no sensor" no_sensor

# nobody touches the sensor
# The helper's own timeout ends the prompt: it tells the user, reports systemCancel with the
# scan's strike given back, and exits; the module's deadline (timeout + 3 s) never has to act,
# and no helper outlives the prompt. The helper is found as a child of this suite's pamtester
# (a watcher below this shell records it while it runs), not by its name.
descendants() {  # descendants PID: every process below PID
    local c
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do echo "$c"; descendants "$c"; done
}
start_time() { sed -n 's/^[0-9]* ([^)]*) \(.*\)/\1/p' /proc/"$1"/stat 2>/dev/null | cut -d' ' -f20; }
# watch_helpers FILE STOP: until STOP exists (60 s at most), appends "pid start-time exe" of each
# child of a pamtester below this shell to FILE.
watch_helpers() {
    local p c i line
    for i in $(seq 3000); do
        [ -e "$2" ] && return 0
        for p in $(descendants $$); do
            [ "$(cat /proc/"$p"/comm 2>/dev/null)" = pamtester ] || continue
            for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
                # Again after its execve: until then the child is a copy of pamtester.
                line="$c $(start_time "$c") $(readlink /proc/"$c"/exe)"
                grep -qxF -- "$line" "$1" 2>/dev/null || echo "$line" >> "$1"
            done
        done
        sleep 0.02
    done
}
# gone PID START: that process has ended (its pid unused, or someone else's now, or a zombie).
gone() {
    local st
    [ -n "$1" ] || return 1
    st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' /proc/"$1"/stat 2>/dev/null)
    [ -z "$st" ] || [ "$st" = Z ] || [ "$(start_time "$1")" != "$2" ]
}
all_gone() {  # all_gone FILE: every "pid start-time exe" in FILE has ended
    local pid start exe
    while read -r pid start exe; do gone "$pid" "$start" || { echo "still running: $pid $exe"; return 1; }; done < "$1"
}
nobody_touches() {
    fresh_state
    local SEEN WATCHER PAMTESTER_EXE HELPER_PID HELPER_START
    service slow-full "auth [success=done default=ignore] $MODULE $ARGS timeout=2" \
                      "auth required pam_unix.so nodelay"
    SEEN="$T/slow.children"
    : > "$SEEN"; rm -f "$T/slow.stop"
    watch_helpers "$SEEN" "$T/slow.stop" & WATCHER=$!
    PAM_WRAPPER_DEBUGLEVEL=2 pam slow-full "$TUSER" "$TPASS"
    touch "$T/slow.stop"; wait "$WATCHER"
    # The child that ran something else than pamtester: the helper (as root, pam_unix starts no
    # unix_chkpwd; and a HELPER that is a script runs as its interpreter, so not by its path).
    PAMTESTER_EXE=$(readlink -f "$(command -v pamtester)")
    HELPER_PID=$(awk -v exe="$PAMTESTER_EXE" '$3 != exe { print $1; exit }' "$SEEN")
    HELPER_START=$(awk -v pid="$HELPER_PID" '$1 == pid { print $2; exit }' "$SEEN")
    echo "# timeout=2: the prompt took ${SECONDS_TAKEN}s (information; scripts/bench.sh measures speed)"
    check "timeout=2 -> 'timed out' shown" has "Fingerprint timed out"
    check "timeout=2 -> the helper's outcome: systemCancel, the strike given back" \
          has "SYSLOG(6): user $TUSER, service slow-full: systemCancel, strikes 0"
    check "timeout=2 -> the module's deadline never had to end it" lacks "helper timed out"
    check "timeout=2 -> the helper exited by itself, with status 0" \
          eval 'lacks "helper killed by signal" && lacks "helper exit status"'
    check "timeout=2 -> then the password authenticates" succeeded
    check "timeout=2 -> (control) the helper was seen running as pamtester's child (pid ${HELPER_PID:-none})" \
          test -n "$HELPER_PID"
    check "timeout=2 -> no helper left after pamtester returns" gone "$HELPER_PID" "$HELPER_START"
    check "timeout=2 -> nothing else pamtester started is left ($(wc -l < "$SEEN") seen)" all_gone "$SEEN"
}
case_ "nobody touches the sensor" nobody_touches

unplugged() {
    fresh_state
    pam full "$TUSER" "$TPASS" "UNPLUG"
    check "unplugged -> the password authenticates" succeeded
    check "unplugged -> the user is told" has "not available"
}
case_ "the sensor goes away mid-scan" unplugged

prints_files() {
    local FILE
    FILE="$T/prints/$TUSER/virtual_device/0/7"
    check "fprintd path: <user>/virtual_device/0/7 for right-index-finger" test -f "$FILE"
    check "file starts with FP3" test "$(head -c 3 "$FILE")" = "FP3"
    check "directories are root 0700" test "$(stat -c %a:%U "$T/prints/$TUSER/virtual_device/0")" = "700:root"
    OUT=$(/usr/bin/python3 - "$FILE" <<'PY' 2>&1
import sys, gi
gi.require_version("FPrint", "2.0")
from gi.repository import FPrint
p = FPrint.Print.deserialize(open(sys.argv[1], "rb").read())
print(p.get_driver(), p.get_device_id(), p.get_username(), p.get_finger().value_nick)
PY
)
    check "embedded driver, device, user and finger match the path" has "virtual_device 0 $TUSER right-index"
}
case_ "prints are fprintd's files, read back by libfprint itself (python3-gi, FPrint.Print.deserialize)" prints_files

summary
