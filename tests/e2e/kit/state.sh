# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The state helpers of the end-to-end suites (sourced by lib.sh): the test user's state file
# ($STATE/$TUID: STATE defaults to $T/state, a suite may set another; TUID is set by the
# suite) and the sensor's traces.

# set_state STRIKES LOCKED_AT [PASSWORD_AT [BOOT_ID [PRINTS_HASH]]]: the state file as root
# writes it (0600; the dir made root 0700 if missing, as the helper makes it). Left out: a
# password now, on this boot, no prints' hash (given, even empty, a value is written as it is).
set_state() {
    [ -d "$STATE" ] || mkdir -m 0700 "$STATE"
    printf 'touchauth-state 1\nstrikes %s\nlocked_at %s\npassword_at %s\npassword_boot_id %s\nprints_hash %s\n' \
        "$1" "$2" "${3-$(date +%s)}" "${4-$(cat /proc/sys/kernel/random/boot_id)}" "${5--}" > "$STATE/$TUID"
    chmod 0600 "$STATE/$TUID"
}
# fresh_state: no state file (nor the module's lockout marker, nor a temporary file): as a user
# who never failed.
fresh_state() { rm -f "$STATE/$TUID" "$STATE/$TUID".*; }
# field NAME: that field of the state file (nothing when there is none).
field() { sed -n "s/^$1 //p" "$STATE/$TUID" 2>/dev/null; }
# strikes: the strikes on disk (0 when there is no state file).
strikes() { field strikes | grep . || echo 0; }
# armed: the virtual sensor was opened (its driver listens on $SOCK from fp_device_open on);
# never_armed: it was not (the caller removes $SOCK before the step).
armed() { [ -e "$SOCK" ]; }
never_armed() { [ ! -e "$SOCK" ]; }
