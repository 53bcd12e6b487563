#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real USB readers without the hardware (issue 38; tests/e2e/NOTES.md#real-usb-readers-under-umockdev):
# umockdev fakes the sysfs devices and the USB nodes of libfprint's elanmoc reader (the
# descriptions in tests/e2e/usb/, cut down from libfprint's own driver tests, LGPL-2.1+) and
# replays the USB traffic libfprint recorded from a real one (usb/elanmoc.pcapng). The real
# libusb, libgusb and libfprint (its elanmoc driver, not a virtual one) enumerate it, so the
# code only a real reader reaches runs: the "fpi-usb-device" property (Sources/CFprint/shim.h),
# gusb's bus and address, the sysfs lookup of busnum, devnum and removable behind the readers at
# hand (docs/POLICY.md#the-lid-and-the-readers-at-hand), and the driver's errors.
#
# The helper empties its environment at start-up (Environment.sanitize), so it would leave the
# testbed (umockdev's preload reads UMOCKDEV_DIR on every call). Tests only: usb/bed.sh runs the
# unchanged release helper through a script that preloads umockdev and usb/keepenv.so, which
# puts UMOCKDEV_DIR back after clearenv(3). Production cannot reach this: the module spawns the
# helper with an empty environment, a setuid exec drops LD_PRELOAD, and without umockdev's
# preload nothing reads UMOCKDEV_DIR.
source "$(dirname "$0")/lib.sh"
ensure_packages umockdev gir1.2-umockdev-1.0 gcc libc6-dev python3 python3-gi gir1.2-fprint-2.0 pamtester libpam-wrapper libpam-modules socat

make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
# Debian's python3, which has gi (a python3 first on PATH may not: pyenv).
GIPY=/usr/bin/python3
USB="$E2E/usb"
export HELPER KEEPENV="$T/keepenv.so" BED_HELPER="$T/bed-helper"
export USB_PORT=/sys/devices/pci0000:00/0000:00:14.0/usb1/1-9  # the recording's reader
PCAP="$USB/elanmoc.pcapng"
gcc -shared -fPIC -O2 -Wall -o "$KEEPENV" "$USB/keepenv.c" -ldl
check "(setup) keepenv.so built" test -f "$KEEPENV"

# The reader's descriptions: as recorded (its port removable: an external reader), its port
# fixed (built in), its port with no removable attribute; and the built-in one beside it
# (usb/elanmoc-internal.device: the same reader on bus 2, at the same address 3, port fixed).
EXT="$USB/elanmoc.device"
sed 's/^A: removable=removable.*/A: removable=fixed\\n/' "$EXT" > "$T/fixed.device"
sed '/^A: removable=removable/d' "$EXT" > "$T/noattr.device"
check "(setup) the fixed and no-attribute descriptions" eval \
    'grep -q "removable=fixed" "$T/fixed.device" && ! grep -q "removable=removable" "$T/noattr.device"'

LID="$T/lid"
mkdir -p "$LID/LID0"
mkdir -m 0700 "$T/state"
echo "state:      open" > "$LID/LID0/state"
CONF="$T/usb.conf"
{ echo "# written by the e2e tests"
  echo "print_dir = $T/prints"; echo "state_dir = $T/state"; echo "lid_dir = $LID"
  echo "lockout_threshold = 1000"; echo "password_after_boot = no"; echo "password_max_age = 0"
  echo "password_after_enroll_change = no"; echo "max_tries = 3"; echo "timeout = 4"; } > "$CONF"
chmod 0644 "$CONF"
# The module runs the helper in the testbed through BED_HELPER (written inside it by bed.sh).
service solo "auth required $MODULE config=$CONF helper=$BED_HELPER debug"
service full "auth [success=done default=ignore] $MODULE config=$CONF helper=$BED_HELPER debug" \
             "auth required pam_unix.so nodelay"
# (strikes, fresh_state: tests/e2e/kit/state.sh, the state in $T/state)
lid() { echo "state:      $1" > "$LID/LID0/state"; }
# bed DESCRIPTION... [-- PCAP] -- CMD: CMD in a testbed of these descriptions (usb/bed.sh).
bed() { "$USB/bed.sh" "$@"; }
# in_bed DEVICE PCAP CMD...: CMD's output (stdout and stderr) in OUT, its status in RC.
in_bed() { OUT=$(bed "$@" 2>&1); RC=$?; }

# The common setup: the print (every case matches against it), the log catcher. Each case sets
# the lid and the state it starts from; a filtered run (scripts/test.sh usb:REGEX) runs only
# the cases it picks.
echo "# enrolment: libfprint's public API replays the recording's enrolment (usb/mkprint.py)"
mkdir -p "$T/prints/$TUSER/elanmoc/0"
in_bed "$EXT" "$PCAP" env FP_DEVICE_EMULATION=1 "$GIPY" "$USB/mkprint.py" "$T/prints/$TUSER/elanmoc/0/7" "$TUSER"
check "(setup) a print of the real driver, enrolled from the replay" test -s "$T/prints/$TUSER/elanmoc/0/7"
chmod -R go-w "$T/prints"
syslog_start
# (its listener ends with the suite, however it ends: a first failure under TOUCHAUTH_FAIL_FAST
# exits from the first case, and a listener left running kept scripts/test.sh waiting)
trap 'syslog_stop; rm -rf "$T"' EXIT

status_doctor() {
    lid open
    in_bed "$EXT" - "$BED_HELPER" status "$TUSER" --config "$CONF"
    check "status, port removable: elanmoc/0 outside the lid, used" \
        has "elanmoc/0: external (USB port removable); prints: right-index-finger; used now"
    in_bed "$EXT" - "$BED_HELPER" status "$TUSER" --json --config "$CONF"
    check "status --json: the placement is 'removable'" has '{"reader":"elanmoc/0","placement":"removable"'
    in_bed "$EXT" - "$BED_HELPER" doctor --user "$TUSER" --config "$CONF"
    check "doctor: the sensor is the real driver" has "OK   sensor: elanmoc/0: Elan MOC Sensors; press; identify: yes; storage on chip: yes"
    check "doctor: outside the lid, used" \
        has "OK   readers: elanmoc/0: external (USB port removable); prints: right-index-finger; used now"
    in_bed "$T/fixed.device" - "$BED_HELPER" status "$TUSER" --config "$CONF"
    check "status, port fixed: inside the lid" has "elanmoc/0: inside the lid (USB port fixed); prints: right-index-finger; used now"
    in_bed "$T/noattr.device" - "$BED_HELPER" status "$TUSER" --config "$CONF"
    check "status, no removable attribute: inside the lid (unknown)" \
        has "elanmoc/0: inside the lid (USB port unknown); prints: right-index-finger; used now"
    lid closed
    in_bed "$T/fixed.device" - "$BED_HELPER" doctor --user "$TUSER" --config "$CONF"
    check "doctor, lid closed, port fixed: not used" \
        has "elanmoc/0: inside the lid (USB port fixed); prints: right-index-finger; not used: the lid is closed"
    in_bed "$T/noattr.device" - "$BED_HELPER" status "$TUSER" --config "$CONF"
    check "status, lid closed, no attribute: not used" \
        has "elanmoc/0: inside the lid (USB port unknown); prints: right-index-finger; not used: the lid is closed"
    in_bed "$EXT" - "$BED_HELPER" status "$TUSER" --config "$CONF"
    check "status, lid closed, port removable: still used" \
        has "elanmoc/0: external (USB port removable); prints: right-index-finger; used now"
    lid open
}
case_ "status and doctor name the real driver and its port" status_doctor

two_readers() {
    lid open
    in_bed "$EXT,$USB/elanmoc-internal.device" - "$BED_HELPER" status "$TUSER" --config "$CONF"
    check "status: one line each, each with its own port (the bus tells them apart)" \
        eval 'has "elanmoc/0: external (USB port removable)" && has "elanmoc/0: inside the lid (USB port fixed)"'
}
case_ "two readers of one driver: bus 1 removable, bus 2 fixed, both at address 3" two_readers

cannot_open() {
    lid open
    fresh_state
    : > "$T/syslog"
    PAM_RUNNER="in_syslog_ns $USB/bed.sh $EXT -"
    pam solo "$TUSER" ""
    check "no replay: PAM_AUTHINFO_UNAVAIL, the reader 'not available'" \
        eval 'has "$MSG_UNAVAIL" && has "The fingerprint reader is not available"'
    check "...the driver's error in the log" logged "cannot open elanmoc/0: USB error on device 04f3:0c88"
    check "...no strike (strikes $(strikes))" test "$(strikes)" = 0
    pam full "$TUSER" "$TPASS"
    check "no replay, pam_unix next: the password at once, it logs in" eval 'succeeded && grep -q "Password: " "$T/out"'
    PAM_RUNNER=
    in_syslog_ns "$USB/bed.sh" "$EXT" - "$BED_HELPER" verify --user "$TUSER" --config "$CONF" > "$T/verify.out" 2>&1
    RC=$?; OUT=$(cat "$T/verify.out")
    check "touchauth verify, run directly: fails (status $RC), naming the driver's error" \
        eval '[ "$RC" != 0 ] && has "verify: cannot open Elan MOC Sensors: USB error on device 04f3:0c88"'
}
case_ "a reader that cannot be opened (no replay: every transfer fails): the password, no strike" cannot_open

lid_closed_two() {
    fresh_state
    # The external reader (bus 1) opens from the replay and waits for a finger the recording never
    # gives (its next packets are an enrolment's): the prompt's deadline ends it. The built-in one
    # (bus 2) has no replay: opening it fails and logs "cannot open elanmoc/0".
    lid closed
    : > "$T/syslog"
    PAM_RUNNER="in_syslog_ns $USB/bed.sh $EXT,$USB/elanmoc-internal.device $PCAP"
    pam full "$TUSER" "$TPASS"
    check "lid closed: the external reader's prompt, then the password" \
        eval 'has "Place your finger on the fingerprint reader" && has "Fingerprint timed out" && succeeded'
    check "...the built-in reader never opened (no 'cannot open' in the log)" \
        eval '! logged "cannot open elanmoc"'
    check "...no strike (strikes $(strikes))" test "$(strikes)" = 0
    lid open
    : > "$T/syslog"
    pam full "$TUSER" "$TPASS"
    check "lid open: both armed, the built-in one opened and failed (its error logged)" \
        logged "cannot open elanmoc/0: USB error on device 04f3:0c88"
    check "...the password logs in, no strike" eval 'succeeded && test "$(strikes)" = 0'
    PAM_RUNNER=
}
case_ "the lid closed, two readers: the external one is used, the built-in one never opened" lid_closed_two

session_api() {
    in_bed "$EXT" "$PCAP" env FP_DEVICE_EMULATION=1 "$GIPY" "$USB/session.py"
    check "libfprint's public API replays the whole recorded session (enrol, list, verify: a match, identify, delete)" \
        has "session: ok"
}
case_ "a real driver's scan, replayed: libfprint's API" session_api

helper_sequence() {
    lid open
    fresh_state
    # The recording's packets (usbmon, both directions): 0-31 the open, 32-91 the enrolment, 92-131
    # the list, 132-143 a verify, 144-155 an identify, 156-159 the delete, 160-161 the close.
    # Our helper opens, identifies and closes: that cut of it (pcaptrim.py), and the same with the
    # chip naming another print (a stranger's finger).
    "$GIPY" "$USB/pcaptrim.py" "$PCAP" "$T/match.pcapng" 0-32,144-156,160-162
    "$GIPY" "$USB/pcaptrim.py" "$PCAP" "$T/stranger.pcapng" 0-32,144-156,160-162 144:nobody:nobodx
    check "(setup) the helper's cuts of the recording" eval 'test -s "$T/match.pcapng" && test -s "$T/stranger.pcapng"'
    in_bed "$EXT" "$T/match.pcapng" "$BED_HELPER" verify --user "$TUSER" --config "$CONF"
    check "touchauth verify, run directly: the real driver matches the enrolled print" \
        eval '[ "$RC" = 0 ] && has "Matched right-index-finger of $TUSER on elanmoc/0"'
    in_bed "$EXT" "$T/stranger.pcapng" "$BED_HELPER" verify --user "$TUSER" --config "$CONF"
    check "touchauth verify, the chip names another print: not recognized" \
        eval '[ "$RC" = 1 ] && has "not recognized: no enrolled finger of $TUSER matched"'
    PAM_RUNNER="in_syslog_ns $USB/bed.sh $EXT $T/match.pcapng"
    pam full "$TUSER" ""
    check "through the module: the real driver's match grants, no password asked" \
        eval 'succeeded && no_password_prompt && has "Place your finger on the fingerprint reader"'
    check "...no strike (strikes $(strikes))" test "$(strikes)" = 0
    PAM_RUNNER="in_syslog_ns $USB/bed.sh $EXT $T/stranger.pcapng"
    pam full "$TUSER" "$TPASS"
    check "through the module, a stranger: 'Not recognized', then the password logs in" \
        eval 'has "Not recognized" && grep -q "Password: " "$T/out" && succeeded'
    check "...the no-match is one strike (strikes $(strikes))" test "$(strikes)" = 1
    PAM_RUNNER=
    "$HELPER" unlock "$TUSER" --config "$CONF" > /dev/null
}
case_ "a real driver's scan, replayed: our helper's own sequence" helper_sequence

# Each prompt is a fresh helper: nothing of the last one's enumeration can stay behind. A
# prompt's pamtester, its output unbuffered (ptyout.py) in $T/p.N.out.
prompt_cmd() {
    echo "printf '%s\\n' '$TPASS' | python3 $E2E/ptyout.py ${WRAPPED[*]} pamtester -v -I tty=:0 full $TUSER authenticate > $T/p.$1.out 2>&1"
}
replug() {
    lid open
    fresh_state
    : > "$T/syslog"
    in_syslog_ns umockdev-wrapper "$GIPY" "$USB/replug.py" "$EXT" "$PCAP" \
        "$(prompt_cmd 1)" remove "$(prompt_cmd 2)" add "$(prompt_cmd 3)" > "$T/replug.out" 2>&1
    OUT=$(grep -v "umockdev-pcap\|^UMockdev\|^ [0-9a-f][0-9a-f] " "$T/replug.out" | tail -n 5; cat "$T/p.1.out" 2>&1)
    check "plugged: the prompt opens the reader (from the replay)" has "Place your finger on the fingerprint reader"
    OUT=$(cat "$T/p.2.out")
    check "unplugged: the next prompt finds no reader, the password at once" \
        eval 'lacks "Place your finger" && grep -q "Password: " "$T/p.2.out" && has "successfully authenticated"'
    OUT=$(cat "$T/p.3.out")
    check "plugged in again: the next prompt finds it" has "Place your finger on the fingerprint reader"
    check "...no strike in all three (strikes $(strikes))" test "$(strikes)" = 0
}
case_ "unplugged and plugged in again (umockdev's remove and add, one testbed: usb/replug.py)" replug

unplugged_mid_prompt() {
    lid open
    fresh_state
    # umockdev's remove fails no transfer in flight (a kernel would, with ENODEV): the helper's scan
    # waits on, and the prompt's deadline ends it (NOTES.md).
    : > "$T/syslog"
    in_syslog_ns umockdev-wrapper "$GIPY" "$USB/replug.py" "$EXT" "$PCAP" \
        "bg:$(prompt_cmd 4)" "until:$T/p.4.out:Place your finger" remove wait > "$T/replug.out" 2>&1
    OUT=$(grep -v "umockdev-pcap\|^UMockdev\|^ [0-9a-f][0-9a-f] " "$T/replug.out" | tail -n 5; cat "$T/p.4.out" 2>&1)
    check "the reader unplugged while it waits for a finger: the password (at the deadline) logs in" \
        eval 'has "Place your finger" && grep -q "Password: " "$T/p.4.out" && has "successfully authenticated"'
    check "...no strike (strikes $(strikes))" test "$(strikes)" = 0
}
case_ "unplugged during a prompt: the password, no strike" unplugged_mid_prompt

syslog_stop

summary
