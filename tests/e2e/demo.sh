#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/demo.sh tells the story its headings say: each step's outcome, read from what the
# demo prints (issue 11 once broke steps 3-7 and the demo still exited 0).
source "$(dirname "$0")/lib.sh"

ALL=$(bash "$ROOT/scripts/demo.sh" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'); RC=$?
OUT=$ALL
check "the demo exits 0" test "$RC" -eq 0
# step N: the lines under the heading "N. ..." (up to the next heading or "Done.").
step() { OUT=$(awk -v n="$1" '/^[0-9]+\. /{cur=$1+0} /^Done\./{cur=-1} cur==n' <<<"$ALL"); }
successes() { test "$(count_of "=> PAM_SUCCESS")" -eq "$1" && test "$(count_of "=> refused")" -eq 0; }
FINGER="Place your finger on the fingerprint reader"

step 1
check "1. enrolled, and listed" eval 'has "Enrolled right-index-finger" && has ": right-index-finger (virtual_device/0)"'
step 2
check "2. first after enrolling: the password (why said), no finger asked" \
    eval 'successes 1 && has "Your password is required after a restart." && has "Password:" && lacks "$FINGER"'
step 3
check "3. the finger, no password" eval 'successes 1 && has "$FINGER" && lacks "Password:"'
step 4
check "4. 'try again' twice, not recognized, then the password" \
    eval 'successes 1 && test "$(count_of "Not recognized, try again")" -eq 2 && has "Fingerprint not recognized" && has "Password:"'
step 5
check "5. the hint, then the finger, no password" \
    eval 'successes 1 && has "Centre your finger on the reader and try again" && lacks "Password:"'
step 6
check "6. both refused, the second ends in the lockout" \
    eval 'test "$(count_of "=> refused")" -eq 2 && has "Too many failed attempts" && has "strikes: 5 in a row" && has "locked: yes"'
step 7
FIRST=$(awk '/^    \$ /{exit} {print}' <<<"$OUT")
check "7. locked: no finger asked, the password gets in" \
    eval 'grep -qF "=> PAM_SUCCESS" <<<"$FIRST" && ! grep -qF "$FINGER" <<<"$FIRST" && grep -qF "Too many failed attempts" <<<"$FIRST"'
check "7. ...and unlocks: strikes 0, not locked, then the finger again" \
    eval 'successes 2 && has "strikes: 0 in a row" && has "locked: no" && has "next authentication: fingerprint" && test "$(count_of "$FINGER")" -eq 1'
step 8
check "8. nobody touches: timed out after 3 s, then the password" \
    eval 'successes 1 && has "[Enter Password] after 3 s" && has "Fingerprint timed out" && has "Password:"'
step 9
check "9. remote: no finger asked, the password" eval 'successes 1 && lacks "$FINGER" && has "Password:"'
step 10
check "10. unplugged: not available, then the password" eval 'successes 1 && has "The fingerprint reader is not available"'
step 11
check "11. the helper crashes, a wrong password: refused" eval 'has "=> refused" && lacks "successfully authenticated"'
OUT=$ALL
DIR=$(sed -n 's/^0\. Setting up in \([^:]*\):.*/\1/p' <<<"$ALL")
check "done: its temp dir is gone" eval '[ -n "$DIR" ] && [ ! -e "$DIR" ]'
summary
