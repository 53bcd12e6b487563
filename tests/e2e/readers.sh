#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The reader at hand (issue 22, docs/POLICY.md#the-lid-and-the-readers-at-hand, docs/ARCHITECTURE.md#the-helper-sources): two readers, a closed lid, a reader
# unplugged. pamtester -> pam_touchauth.so -> touchauth -> two of libfprint's virtual readers,
# each on its own socket: A is virtual_device (its fake sysfs port says "fixed": inside the
# lid), B is virtual_device_storage (its port says "removable": an external USB reader). The
# lid is a fake ACPI tree (lid_dir), sysfs a fake tree (sysfs_dir). A reader's socket appears
# when the helper opens it: no socket, never armed.
source "$(dirname "$0")/lib.sh"

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
ASOCK="$T/a.sock"
BSOCK="$T/b.sock"
LID="$T/lid"
SYS="$T/sys/bus/usb/devices"
mkdir -p "$LID/LID0" "$SYS/virtual_device" "$SYS/virtual_device_storage"
mkdir -m 0700 "$T/state"
echo "state:      open" > "$LID/LID0/state"
echo fixed > "$SYS/virtual_device/removable"
echo removable > "$SYS/virtual_device_storage/removable"
CONF="$T/readers.conf"
{ echo "# written by the e2e tests"; echo "virtual_device = $ASOCK"; echo "virtual_device_storage = $BSOCK"
  echo "print_dir = $T/prints"; echo "state_dir = $T/state"; echo "lid_dir = $LID"; echo "sysfs_dir = $T/sys"
  echo "lockout_threshold = 1000"; echo "password_after_boot = no"; echo "password_max_age = 0"
  echo "password_after_enroll_change = no"; echo "max_tries = 3"; echo "timeout = 20"; } > "$CONF"
chmod 0644 "$CONF"
service solo "auth required $MODULE config=$CONF helper=$HELPER debug"
service full "auth [success=done default=ignore] $MODULE config=$CONF helper=$HELPER debug" \
             "auth required pam_unix.so nodelay"
# (strikes: tests/e2e/kit/state.sh)
# B's chip lives in the helper's memory: each prompt puts the finger on it first (INSERT).
B_MATCH=("INSERT chip-b" "SCAN chip-b")
B_WRONG=("INSERT chip-stranger" "SCAN chip-stranger")

# enroll_on SOCKET DEVICE FINGER ID: `touchauth enroll --device DEVICE`, 5 scans of ID.
enroll_on() {
    rm -f "$1"
    python3 "$E2E/vsensor.py" "$1" "SCAN $4" "SCAN $4" "SCAN $4" "SCAN $4" "SCAN $4" > /dev/null 2>&1 &
    local sender=$!
    "$HELPER" enroll --user "$TUSER" --device "$2" --finger "$3" --config "$CONF" --replace > "$T/enroll.out" 2>&1
    local rc=$?
    wait "$sender"
    return $rc
}

# two SERVICE: pamtester while A_CMDS go to reader A and B_CMDS to reader B (each sender only
# when it has commands; B_DELAY seconds before B's). Sets what pam() sets, and A_OPENED,
# B_OPENED: whether the helper opened each reader (its socket appeared).
A_CMDS=() B_CMDS=() B_DELAY=0
two() {
    rm -f "$ASOCK" "$BSOCK" 2>/dev/null  # (B squatted by a directory: "unplugged", kept)
    local pids=()
    if [ ${#A_CMDS[@]} -gt 0 ]; then python3 "$E2E/vsensor.py" "$ASOCK" "${A_CMDS[@]}" > "$T/va.out" 2>&1 & pids+=($!); fi
    if [ ${#B_CMDS[@]} -gt 0 ]; then
        (sleep "$B_DELAY"; exec python3 "$E2E/vsensor.py" "$BSOCK" "${B_CMDS[@]}") > "$T/vb.out" 2>&1 & pids+=($!)
    fi
    # (the helper leaves the sockets it listened on: they say which readers it opened)
    pam "$1" "$TUSER" ""
    A_OPENED=no B_OPENED=no
    [ -S "$ASOCK" ] && A_OPENED=yes
    [ -S "$BSOCK" ] && B_OPENED=yes
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    A_CMDS=() B_CMDS=() B_DELAY=0
}
unlock() { "$HELPER" unlock "$TUSER" --config "$CONF" > /dev/null; }
# at_hand: what each case starts from: the lid open, B's port removable and B plugged in (no
# squatter on its socket), no state (no strikes). A filtered run runs only the cases it picks.
at_hand() {
    echo "state:      open" > "$LID/LID0/state"
    echo removable > "$SYS/virtual_device_storage/removable"
    rm -rf "$ASOCK" "$BSOCK"
    fresh_state
}

# The common setup: one finger enrolled on each reader.
echo "# enrolment: one finger on each reader"
enroll_on "$ASOCK" virtual_device/0 right-index-finger tu-a
check "(setup) enrolled on reader A (virtual_device/0)" test -f "$T/prints/$TUSER/virtual_device/0/7"
enroll_on "$BSOCK" virtual_device_storage/0 left-index-finger chip-b
check "(setup) enrolled on reader B (virtual_device_storage/0)" test -f "$T/prints/$TUSER/virtual_device_storage/0/2"

lid_open() {
    at_hand
    A_CMDS=("SCAN tu-a")
    two solo
    check "lid open, A's finger -> PAM_SUCCESS" succeeded
    check "lid open -> both readers opened (A $A_OPENED, B $B_OPENED)" test "$A_OPENED$B_OPENED" = yesyes
    B_CMDS=("${B_MATCH[@]}")
    two solo
    check "lid open, B's finger (the second reader) -> PAM_SUCCESS" succeeded
    check "...with the prompt of several readers" has "Place your finger on the fingerprint reader"
    check "...and the strikes start over (strikes $(strikes))" test "$(strikes)" = 0
}
case_ "lid open: both readers armed, a match on either grants" lid_open

hint() {
    at_hand
    A_CMDS=("RETRY 2" "SCAN tu-a")
    two solo
    check "A's hint, then A's finger -> PAM_SUCCESS" succeeded
    check "...one hint shown, no 'not recognized' (strikes $(strikes))" \
        eval 'test "$(count_of "Centre your finger")" -eq 1 && lacks "Not recognized" && test "$(strikes)" = 0'
}
case_ "a sensor's hint on one reader is no strike; the round starts again on both" hint

strikes_across() {
    at_hand
    unlock
    # Two wrong fingers on A; once both are settled (the third round's charge on disk: 3), one on B.
    A_CMDS=("SCAN stranger" "SCAN stranger")
    rm -rf "$ASOCK" "$BSOCK"
    python3 "$E2E/vsensor.py" "$ASOCK" "${A_CMDS[@]}" > "$T/va.out" 2>&1 & APID=$!
    ( for _ in $(seq 1500); do [ "$(strikes)" = 3 ] && break; sleep 0.01; done
      exec python3 "$E2E/vsensor.py" "$BSOCK" "${B_WRONG[@]}" ) > "$T/vb.out" 2>&1 & BPID=$!
    A_CMDS=()
    pam solo "$TUSER" ""
    kill "$APID" "$BPID" 2>/dev/null; wait "$APID" "$BPID" 2>/dev/null
    check "two wrong on A, one on B -> PAM_MAXTRIES" has "$MSG_MAXTRIES"
    check "...'Not recognized, try again' twice" test "$(count_of "Not recognized, try again")" -eq 2
    check "...3 strikes on disk (strikes $(strikes))" test "$(strikes)" = 3
    unlock
}
case_ "strikes count across readers: max_tries 3" strikes_across

deadline() {
    at_hand
    service short "auth required $MODULE config=$CONF helper=$HELPER debug timeout=2"
    two short
    check "both armed, no finger, timeout 2 s -> PAM_AUTHINFO_UNAVAIL (both opened: A $A_OPENED, B $B_OPENED)" \
        eval 'has "$MSG_UNAVAIL" && test "$A_OPENED$B_OPENED" = yesyes'
    check "...the round's strike refunded (strikes $(strikes))" test "$(strikes)" = 0
}
case_ "the prompt's deadline ends the scans of both readers" deadline

unplugged_mid_prompt() {
    at_hand
    A_CMDS=("UNPLUG") B_CMDS=("${B_MATCH[@]}") B_DELAY=2
    two solo
    check "A unplugged, then B's finger -> PAM_SUCCESS" succeeded
    check "...no 'not recognized' (the failure is no strike; strikes $(strikes))" eval 'lacks "Not recognized" && test "$(strikes)" = 0'
}
case_ "a reader unplugged mid-prompt is dropped, the other goes on" unplugged_mid_prompt

lid_closed() {
    at_hand
    echo "state:      closed" > "$LID/LID0/state"
    B_CMDS=("${B_MATCH[@]}")
    two solo
    check "lid closed, B (removable port) -> PAM_SUCCESS" succeeded
    check "lid closed -> A (fixed port) never opened, B opened (A $A_OPENED, B $B_OPENED)" test "$A_OPENED$B_OPENED" = noyes
    check "...with the one-reader prompt" has "Place your finger on the fingerprint reader"
    echo unknown > "$SYS/virtual_device_storage/removable"
    two full
    check "lid closed, B's port 'unknown' (inside) -> the password, no prompt" eval 'lacks "Place your finger" && grep -q "^Password: " "$T/out"'
    check "...neither reader opened (A $A_OPENED, B $B_OPENED)" test "$A_OPENED$B_OPENED" = nono
    two solo
    check "lid closed, no external reader -> PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
    rm -f "$SYS/virtual_device_storage/removable"
    two solo
    check "lid closed, B with no removable file (inside) -> PAM_AUTHINFO_UNAVAIL, neither opened" \
        eval 'has "$MSG_UNAVAIL" && test "$A_OPENED$B_OPENED" = nono'
    echo removable > "$SYS/virtual_device_storage/removable"
    echo "state:      open" > "$LID/LID0/state"
}
case_ "the lid closed: only the external reader is armed" lid_closed

replugged() {
    at_hand
    B_CMDS=("${B_MATCH[@]}")
    two solo
    check "(setup) B's finger before the unplug -> PAM_SUCCESS" succeeded
    # Unplugged: B's socket path squatted by a non-empty directory, so opening B fails.
    rm -f "$BSOCK"; mkdir -p "$BSOCK/gone"
    A_CMDS=("SCAN tu-a")
    two solo
    check "B unplugged: A's finger -> PAM_SUCCESS" succeeded
    check "...B could not be opened (B $B_OPENED)" test "$B_OPENED" = no
    rm -rf "$BSOCK"
    B_CMDS=("${B_MATCH[@]}")
    two solo
    check "B plugged in again: the next prompt finds it, B's finger -> PAM_SUCCESS" succeeded
    check "...B opened again (B $B_OPENED)" test "$B_OPENED" = yes
}
case_ "a reader unplugged and plugged in again between two prompts" replugged

status_doctor() {
    at_hand
    "$HELPER" status "$TUSER" --config "$CONF" > "$T/status.out" 2>&1
    OUT=$(cat "$T/status.out")
    check "status: the lid is open" has "lid: open"
    check "status: A is inside, has prints, used" has "virtual_device/0: inside the lid (USB port fixed); prints: right-index-finger; used now"
    check "status: B is external, has prints, used" has "virtual_device_storage/0: external (USB port removable); prints: left-index-finger; used now"
    echo "state:      closed" > "$LID/LID0/state"
    "$HELPER" status "$TUSER" --config "$CONF" > "$T/status.out" 2>&1
    OUT=$(cat "$T/status.out")
    check "status, lid closed: A not used (inside a closed lid)" has "virtual_device/0: inside the lid (USB port fixed); prints: right-index-finger; not used: the lid is closed"
    check "status, lid closed: B used" has "virtual_device_storage/0: external (USB port removable); prints: left-index-finger; used now"
    "$HELPER" doctor --user "$TUSER" --config "$CONF" > "$T/doctor.out" 2>&1
    OUT=$(cat "$T/doctor.out")
    check "doctor: the lid is closed" has "lid: closed"
    check "doctor: B would be used, A would not" \
        eval 'has "virtual_device_storage/0: external (USB port removable); prints: left-index-finger; used now" && has "virtual_device/0: inside the lid (USB port fixed); prints: right-index-finger; not used: the lid is closed"'
    echo "state:      open" > "$LID/LID0/state"
}
case_ "status and doctor name the readers and which a prompt would use" status_doctor

summary
