#!/usr/bin/env bash
# Strikes, the five-strike lockout and Apple's trust rules (issue 3), end to end: pamtester
# (authenticate, and acct_mgmt in the same handle) -> pam_touchauth.so (and its authsucc line) -> touchauth ->
# libfprint's virtual sensor, with pam_unix and a real password behind it.
source "$(dirname "$0")/lib.sh"

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
# The state dir's parent is open to all, so the test user's failures below are the state
# dir's and files' own doing.
S=$(mktemp -d /tmp/touchauth-state.XXXXXX); chmod 0755 "$S"
STATE="$S/state"
trap 'syslog_stop; rm -rf "$T" "$S"' EXIT
write_config "$T/touchauth.conf" "state_dir=$STATE"
ARGS="config=$T/touchauth.conf helper=$HELPER debug"
AUTH="auth [success=done default=ignore] $MODULE $ARGS"
service solo "auth required $MODULE $ARGS"
# The password's recorder comes after a requisite pam_unix: only a password that succeeded
# reaches it (DESIGN.md §2). The old account line stays, to show it clears nothing now.
service full "$AUTH" "auth requisite pam_unix.so nodelay" "auth optional $MODULE authsucc $ARGS" \
    "account required $MODULE $ARGS"
# Without the recorder a password that succeeds clears nothing: the strikes carry over.
service norecord "$AUTH" "auth requisite pam_unix.so nodelay" "account required $MODULE $ARGS"
syslog_start
PAM_RUNNER=in_syslog_ns

status_json() { "$HELPER" status "$TUSER" --json --config "$T/touchauth.conf"; }
json_has() { status_json | grep -qF -- "$1"; }
sensor_unopened() { test ! -e "$SOCK"; }  # the virtual driver listens from fp_device_open on
# password_ok [OPS]: the password after a fingerprint that did not succeed (no scan sent:
# the lockout or a trust rule, or timeout=1 where nothing is refused).
password_and_account() { PAM_OPS="authenticate acct_mgmt" pam full "$TUSER" "$TPASS" "$@"; }
set_state() {  # set_state STRIKES LOCKED_AT PASSWORD_AT BOOT HASH: write the state file as root would
    printf 'touchauth-state 1\nstrikes %s\nlocked_at %s\npassword_at %s\npassword_boot_id %s\nprints_hash %s\n' \
        "$@" > "$STATE/$TUID"; chmod 0600 "$STATE/$TUID"
}
field() { sed -n "s/^$1 //p" "$STATE/$TUID"; }

echo "# first use after enrolling: the password comes first (after boot, and never a password yet)"
enroll "$TUSER" right-index-finger tu-ri
pam solo "$TUSER" ""
check "fresh user -> passwordRequired, the password" has "$MSG_UNAVAIL"
check "...says why" has "Your password is required after a restart."
check "...without opening the sensor" sensor_unopened
password_and_account
check "password + account -> success" succeeded
check "...the state now records the password's boot" test "$(field password_boot_id)" = "$(cat /proc/sys/kernel/random/boot_id)"
pam solo "$TUSER" "" "SCAN tu-ri"
check "then the finger works" succeeded

echo "# three wrong, the password; two more wrong: locked"
pam norecord "$TUSER" "$TPASS" "SCAN x" "SCAN x" "SCAN x"
check "3 wrong -> the password (authenticate only)" succeeded
check "...3 strikes on disk" json_has '"strikes":3'
PAM_RUNNER="env PAM_WRAPPER_DEBUGLEVEL=2" pam solo "$TUSER" "" "SCAN tu-ri"
check "the audit line: user, service, outcome, strikes (a match clears them)" \
    has "SYSLOG(5): user $TUSER, service solo: success, strikes 0"
PAM_RUNNER="env PAM_WRAPPER_DEBUGLEVEL=2" pam solo "$TUSER" "" "SCAN x" "SCAN x" "SCAN x"
check "the audit line after three wrong: strikes 3" \
    has "SYSLOG(5): user $TUSER, service solo: authenticationFailed, strikes 3"
pam solo "$TUSER" "" "SCAN x" "SCAN x"
check "2 more wrong -> biometryLockout" has "$MSG_UNAVAIL"
check "...the lockout message" has "Too many failed attempts. Enter your password to use your fingerprint again."
check "...'Not recognized' once, for the 4th" test "$(count_of "Not recognized, try again")" -eq 1
check "...locked on disk" json_has '"locked":true'
pam solo "$TUSER" "" "SCAN tu-ri"
check "locked -> even the right finger is not asked for" has "Too many failed attempts"
check "...and the sensor is not opened" sensor_unopened
check "...PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
PAM_OPS=acct_mgmt pam full "$TUSER" ""
check "an account check without authentication (cron, ssh keys) changes nothing" json_has '"locked":true'
PAM_OPS="authenticate acct_mgmt" pam full "$TUSER" "wrong password"
check "a wrong password changes nothing" json_has '"locked":true'
# pamtester stops at the failed authenticate; sshd does not: after a failed password it calls
# pam_acct_mgmt on the same handle once a key is accepted (tests/e2e/sshd.sh does it for real).
gcc -o "$T/fail_then_account" "$E2E/clients/fail_then_account.c" -lpam
OUT=$(in_syslog_ns env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$T/pam.d" \
    timeout 60 "$T/fail_then_account" full "$TUSER" "wrong password" 2>&1)
check "a failed password, then the account phase on the same handle: the client saw both" \
    has "account: Success"
check "...and the lockout stays" json_has '"locked":true'
password_and_account
check "the password + account -> success" succeeded
check "...unlocks" json_has '"locked":false,"locked_since":null'
check "...and clears the strikes" json_has '"strikes":0'
pam solo "$TUSER" "" "SCAN tu-ri"
check "the right finger works again" succeeded

echo "# the user cannot clear their own lockout"
for _ in 1 2 3 4 5; do pam solo "$TUSER" "" "SCAN x"; done
check "locked again" json_has '"locked":true'
check "state dir is root 0700" test "$(stat -c %a:%U "$STATE")" = "700:root"
check "state file is root 0600" test "$(stat -c %a:%U "$STATE/$TUID")" = "600:root"
user_cannot() { ! su -s /bin/sh "$TUSER" -c "$1" >/dev/null 2>&1; }
check "the user cannot read it" user_cannot "cat $STATE/$TUID"
check "the user cannot delete it" user_cannot "rm -f $STATE/$TUID"
check "the user cannot replace it" user_cannot "echo x > $STATE/$TUID"
check "the user cannot list the state dir" user_cannot "ls $STATE"
check "the user cannot run touchauth unlock" user_cannot "$HELPER unlock $TUSER --config $T/touchauth.conf"
check "(control) the user can run commands at all" su -s /bin/sh "$TUSER" -c true
check "...still locked" json_has '"locked":true'
"$HELPER" unlock "$TUSER" --config "$T/touchauth.conf" > "$T/unlock.out"
check "root's touchauth unlock unlocks" json_has '"locked":false'
pam solo "$TUSER" "" "SCAN tu-ri"
check "...and the finger works" succeeded

echo "# unusable state: treated as locked, logged, repaired by unlock"
GOOD=$(cat "$STATE/$TUID")
for kind in corrupt truncated foreign-owned symlink; do
    case $kind in
        corrupt) printf 'garbage\n\x01\xff' > "$STATE/$TUID" ;;
        truncated) printf '%s' "$GOOD" | head -c 30 > "$STATE/$TUID" ;;
        foreign-owned) printf '%s\n' "$GOOD" > "$STATE/$TUID"; chown "$TUSER" "$STATE/$TUID" ;;
        symlink) rm -f "$STATE/$TUID"; printf '%s\n' "$GOOD" > "$S/elsewhere"; ln -s "$S/elsewhere" "$STATE/$TUID" ;;
    esac
    : > "$T/syslog"
    pam solo "$TUSER" "" "SCAN tu-ri"
    check "$kind state -> lockout, not the finger" has "Too many failed attempts"
    check "$kind state -> the sensor is not opened" sensor_unopened
    check "$kind state -> a clear log line" logged "state unusable"
    check "$kind state -> status says so" json_has '"state":"unusable"'
    "$HELPER" unlock "$TUSER" --config "$T/touchauth.conf" > /dev/null
    check "$kind state -> unlock repairs it" json_has '"state":"ok"'
    check "$kind state -> ...as a root 0600 file" test "$(stat -c %a:%U:%F "$STATE/$TUID")" = "600:root:regular file"
done
OUT=$(status_json)
check "a repaired state starts the trust rules over: the password comes next" has '"next":"password"'
password_and_account
pam solo "$TUSER" "" "SCAN tu-ri"
check "...then the finger works" succeeded

echo "# the trust rules"
BOOT=$(cat /proc/sys/kernel/random/boot_id)
HASH=$(field prints_hash)
NOW=$(date +%s)
set_state 0 - $((NOW - 3600)) 00000000-1111-2222-3333-444444444444 "$HASH"
pam solo "$TUSER" "" "SCAN tu-ri"
check "another boot id -> the password first" has "Your password is required after a restart."
check "...without opening the sensor" sensor_unopened
set_state 0 - $((NOW - 49 * 3600)) "$BOOT" "$HASH"
pam solo "$TUSER" "" "SCAN tu-ri"
check "49 h without the password -> the password first" has "has not been used for 48 hours"
set_state 0 - $((NOW - 47 * 3600)) "$BOOT" "$HASH"
pam solo "$TUSER" "" "SCAN tu-ri"
check "47 h -> the finger" succeeded
enroll "$TUSER" left-index-finger tu-li
pam solo "$TUSER" "" "SCAN tu-ri"
check "a finger added -> the password first" has "after fingerprints were added or changed"
password_and_account
pam solo "$TUSER" "" "SCAN tu-li" "SCAN tu-ri"
check "...then the fingers work" succeeded
rm -f "$T/prints/$TUSER/virtual_device/0/2"
pam solo "$TUSER" "" "SCAN tu-ri"
check "a finger removed -> the password first too" has "after fingerprints were added or changed"
password_and_account
passwd -l "$TUSER" > /dev/null
pam solo "$TUSER" "" "SCAN tu-ri"
check "an account with a locked password -> passwordNotSet" has "Set a password for this account to use your fingerprint."
check "...without opening the sensor" sensor_unopened
passwd -u "$TUSER" > /dev/null
pam solo "$TUSER" "" "SCAN tu-ri"
check "password unlocked -> the finger works" succeeded
write_config "$T/rules-off.conf" "state_dir=$STATE" "password_after_boot=no" "password_max_age=0" \
    "password_after_enroll_change=no" "require_password_set=no"
service rules-off "auth required $MODULE config=$T/rules-off.conf helper=$HELPER"
set_state 0 - - - -
passwd -l "$TUSER" > /dev/null
pam rules-off "$TUSER" "" "SCAN tu-ri"
passwd -u "$TUSER" > /dev/null
check "every rule off -> a fresh state scans" succeeded

echo "# unlock_time ends a lockout by itself"
write_config "$T/unlock-time.conf" "state_dir=$STATE" "unlock_time=60" "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no"
service unlock-time "auth required $MODULE config=$T/unlock-time.conf helper=$HELPER"
set_state 5 $((NOW - 30)) - - -
pam unlock-time "$TUSER" "" "SCAN tu-ri"
check "locked 30 s ago, unlock_time=60 -> still locked" has "Too many failed attempts"
set_state 5 $((NOW - 61)) - - -
pam unlock-time "$TUSER" "" "SCAN tu-ri"
check "locked 61 s ago -> the finger works" succeeded
check "...and the lockout is cleared on disk" test "$(field locked_at)" = "-"

echo "# 20 prompts at once, 10 wrong fingers each: no strike lost"
"$HELPER" unlock "$TUSER" --config "$T/touchauth.conf" > /dev/null
for i in $(seq 20); do
    write_config "$T/par$i.conf" "state_dir=$STATE" "virtual_device=$T/par$i.sock" "max_tries=10" \
        "lockout_threshold=1000" "password_after_boot=no" "password_max_age=0" "password_after_enroll_change=no"
    sed -i "/^virtual_device = $(printf '%s' "$SOCK" | sed 's|/|\\/|g')\$/d" "$T/par$i.conf"
done
pids=()
for i in $(seq 20); do
    ( rm -f "$T/par$i.sock"
      scans=(); for _ in $(seq 10); do scans+=("SCAN x"); done
      python3 "$E2E/vsensor.py" "$T/par$i.sock" "${scans[@]}" >/dev/null 2>&1 &
      printf 'touchauth-request 1\nuser %s\nservice par\nfallback none\narg config=%s\nend\n' "$TUSER" "$T/par$i.conf" |
          "$HELPER" pam-verify > "$T/par$i.out" 2>&1
      wait ) &
    pids+=($!)
done
wait "${pids[@]}"
check "all 20 ended in authenticationFailed" test "$(grep -l '^result authenticationFailed$' "$T"/par*.out | wc -l)" -eq 20
check "exactly 200 strikes counted" test "$(field strikes)" = 200

echo "# 1000 writes, each killed with SIGKILL at a random moment: the file always loads"
bad=0
for i in $(seq 1000); do
    if [ $((i % 2)) -eq 0 ]; then
        "$HELPER" unlock "$TUSER" --config "$T/touchauth.conf" > /dev/null 2>&1 &
    else
        printf 'touchauth-request 1\nuser %s\nservice kill\nfallback none\narg config=%s\nend\n' "$TUSER" "$T/touchauth.conf" |
            "$HELPER" pam-account > /dev/null 2>&1 &
    fi
    pid=$!
    [ $((RANDOM % 4)) -ne 0 ] && sleep "0.00$((RANDOM % 4))"
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    status_json | grep -qF '"state":"ok"' || bad=$((bad + 1))
done
check "never corrupt (checked after every write)" test "$bad" -eq 0
check "the state loads after all" json_has '"state":"ok"'
check "no temporary files pile up" test "$(ls "$STATE" | grep -c tmp)" -le 1
# (kill -9 lands in every phase: before the lock, holding it, mid-write, after rename.)

summary
