#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The touchauth command (issue 5): enroll, list, delete, verify, enable/disable, doctor, on
# libfprint's virtual sensors (virtual_device, and virtual_device_storage as the match-on-chip
# stand-in), with their errors; and the module's "disabled" skip, which starts no helper. Then
# (issue 14) doctor's summary line, the version from pam/version.h everywhere, the output in
# Chinese with the catalogs staged by install.sh, and the shell completions against --help.
source "$(dirname "$0")/lib.sh"
# zsh: its completion is called for real below; dpkg-dev: debian/rules' version check.
ensure_packages zsh dpkg-dev

make_user "$TUSER" "$TPASS"
make_user "$NOPRINTS_USER" "$TPASS"
NO_RULES=("state_dir=$T/state" "lockout_threshold=1000" "password_after_boot=no" "password_max_age=0"
          "password_after_enroll_change=no")
write_config "$T/touchauth.conf" "${NO_RULES[@]}" "helper=$HELPER"
C="$T/touchauth.conf"
P="$T/prints/$TUSER/virtual_device/0"

# cli ARGS...: the helper with --config, as root; sets RC, OUT (stdout+stderr), ERR (stderr).
cli() {
    "$HELPER" "$@" > "$T/cli.out" 2> "$T/cli.err"
    RC=$?
    ERR=$(cat "$T/cli.err"); OUT=$(cat "$T/cli.out" "$T/cli.err")
}
# cli_scan "COMMANDS..." ARGS...: cli while the sensor gets the commands (one word list per arg).
cli_scan() {
    local cmds=$1; shift
    rm -f "$SOCK"
    local -a list; IFS='|' read -r -a list <<<"$cmds"
    python3 "$E2E/vsensor.py" "$SOCK" "${list[@]}" > /dev/null 2>&1 & local sender=$!
    cli "$@"
    kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null
}
one_error_line() { [ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ]; }
rc_is() { [ "$RC" -eq "$1" ]; }
# as_user COMMAND...: a shell command as the test user (su; the account has no login shell).
as_user() {
    su -s /bin/sh "$TUSER" -c "$*" > "$T/cli.out" 2> "$T/cli.err"
    RC=$?; ERR=$(cat "$T/cli.err"); OUT=$(cat "$T/cli.out" "$T/cli.err")
}
S5="SCAN tu-ri|SCAN tu-ri|SCAN tu-ri|SCAN tu-ri|SCAN tu-ri"
SSOCK="$T/store.sock"
{ echo "virtual_device_storage = $SSOCK"; echo "print_dir = $T/prints"; for kv in "${NO_RULES[@]}"; do echo "${kv%%=*} = ${kv#*=}"; done; } > "$T/store.conf"
SC="$T/store.conf"; SP="$T/prints/$TUSER/virtual_device_storage/0"
store_scan() { local cmds=$1; shift; local save=$SOCK; SOCK=$SSOCK; cli_scan "$cmds" "$@"; SOCK=$save; }

# Each section starts from the prints it needs and an empty state dir (start_case), copied from
# fixtures enrolled here once: a failure in one section does not carry into the next.
FIX="$T/fixture"
sed "s|^print_dir = .*|print_dir = $FIX|" "$C" > "$T/fix.conf"
sed "s|^print_dir = .*|print_dir = $FIX|" "$SC" > "$T/fixstore.conf"
cli_scan "$S5" enroll --user "$TUSER" --config "$T/fix.conf"; fix_rc=$RC
cli_scan "SCAN tu-rt|SCAN tu-rt|SCAN tu-rt|SCAN tu-rt|SCAN tu-rt" enroll --user "$TUSER" --finger right-thumb --config "$T/fix.conf"
fix_rc=$((fix_rc + RC))
store_scan "SCAN chip-b|SCAN chip-b|SCAN chip-b|SCAN chip-b|SCAN chip-b" enroll --user "$TUSER" --config "$T/fixstore.conf"
fix_rc=$((fix_rc + RC))
check "(setup) the fixtures: right index and right thumb on virtual_device, right index on the chip" \
    eval 'test "$fix_rc" -eq 0 && test -f "$FIX/$TUSER/virtual_device/0/7" && test -f "$FIX/$TUSER/virtual_device/0/6" && test -f "$FIX/$TUSER/virtual_device_storage/0/7"'
# start_case [SENSOR...]: the user's prints on these sensors only (virtual_device: right index
# and right thumb; virtual_device_storage: right index, whose chip copy is not in any helper's
# chip), no state (no strikes, no lockout, not disabled).
start_case() {
    rm -rf "$T/prints" "$T/state"
    mkdir "$T/prints"; chmod --reference="$FIX" "$T/prints"
    [ $# -eq 0 ] && return
    cp -a "$FIX/$TUSER" "$T/prints/"
    local d keep
    for d in "$T/prints/$TUSER"/*; do
        keep=no; for k in "$@"; do [ "${d##*/}" = "$k" ] && keep=yes; done
        [ $keep = yes ] || rm -rf "$d"
    done
}

# The common setup of the cases below (each case starts with start_case, or writes what it
# reads; a filtered run, scripts/test.sh cli:REGEX, runs only the cases it picks): the configs,
# services and doctor's directories more than one case uses.
UID_T=$(id -u "$TUSER")
write_config "$T/nosensor.conf" "${NO_RULES[@]}"; sed -i '/^virtual_device/d' "$T/nosensor.conf"
MARKER="$T/helper-ran"
printf '#!/bin/sh\ntouch %s\necho "touchauth 1"\necho "result success"\n' "$MARKER" > "$T/marker-helper"
chmod 0755 "$T/marker-helper"
service marker "auth required $MODULE config=$C helper=$T/marker-helper debug"
service full "auth [success=done default=ignore] $MODULE config=$C helper=$HELPER" "auth required pam_unix.so nodelay"
{ cat "$C"; echo "virtual_device_storage = $SSOCK"; } > "$T/both.conf"
mkdir -p "$T/pamd"
printf 'auth [success=done default=ignore] pam_touchauth.so\n@include common-auth\nauth optional pam_touchauth.so authsucc\n' > "$T/pamd/good"
printf 'auth required pam_unix.so\nauth sufficient pam_touchauth.so\n' > "$T/pamd/bad"
printf 'auth [success=1 default=ignore] pam_unix.so nullok\nauth requisite pam_deny.so\nauth required pam_permit.so\n' > "$T/pamd/common-auth"
{ cat "$T/both.conf"; echo "colour = blue"; } > "$T/doctor.conf"
# doctor's module check looks in the PAM module directory (the first that holds pam_unix.so): a
# private mount namespace puts a known one there, with or without pam_touchauth.so, so the exit
# status is known whatever this machine has installed.
SECDIR=/usr/lib/$(uname -m)-linux-gnu/security
mkdir -m 0755 "$T/sec-with" "$T/sec-without"
for d in with without; do cp "$SECDIR/pam_unix.so" "$T/sec-$d/"; done
cp "$MODULE" "$T/sec-with/pam_touchauth.so"; chmod 0644 "$T/sec-with/pam_touchauth.so"
# DBUS_SERVICES=DIR puts DIR over D-Bus's system services too (fprintd's activation file or none).
doctor_in() {  # doctor_in DIR ARGS...: cli doctor ARGS with DIR as the PAM module directory
    local dir=$1; shift
    unshare -m sh -c 'mount --bind "$1" "$2" && { [ -z "$3" ] || mount --bind "$3" /usr/share/dbus-1/system-services; } &&
        shift 3 && exec "$@"' sh "$dir" "$SECDIR" "${DBUS_SERVICES:-}" "$HELPER" doctor "$@" > "$T/cli.out" 2> "$T/cli.err"
    RC=$?
    ERR=$(cat "$T/cli.err"); OUT=$(cat "$T/cli.out" "$T/cli.err")
}
VERSION=$(sed -n 's/^#define TOUCHAUTH_VERSION "\(.*\)"$/\1/p' "$ROOT/pam/version.h")
STAGE="$T/stage"  # install.sh --destdir's tree (the language case stages it; completion too, if not yet)

help_everywhere() {
    for cmd in enroll list delete verify enable disable doctor status unlock; do
        cli "$cmd" --help
        check "$cmd --help: usage on stdout, exit 0" eval 'rc_is 0 && grep -q "^usage: touchauth $cmd" "$T/cli.out"'
    done
    cli frobnicate
    check "unknown command: one line on stderr, exit 2" eval 'rc_is 2 && one_error_line && has "unknown command"'
    cli list --frob --config "$C"
    check "unknown option: one line on stderr, exit 2" eval 'rc_is 2 && one_error_line && has "unknown option --frob"'
}
case_ "--help on every command" help_everywhere

enroll_case() {
    start_case
    cli_scan "SCAN tu-ri|SCAN tu-ri|RETRY 2|SCAN tu-ri|SCAN tu-ri|SCAN tu-ri" enroll --user "$TUSER" --config "$C"
    check "enroll (default finger right-index-finger) -> exit 0, the file" eval 'rc_is 0 && test -f "$P/7"'
    check "progress: plain lines when stdout is not a terminal" eval 'has "stage 1/5" && has "stage 5/5"'
    check "retry hint shown (RETRY 2 -> centre)" has "Centre your finger on the reader and try again"
    cli_scan "$S5" enroll --user "$TUSER" --config "$C"
    check "an enrolled finger again -> refused, exit 1, one line" eval 'rc_is 1 && one_error_line && has "already enrolled" && has "--replace"'
    cli enroll --user "$TUSER" --finger left-pinky --config "$C"
    check "unknown finger -> exit 2, one line naming the fingers" eval 'rc_is 2 && one_error_line && has "unknown finger" && has "left-little-finger"'
    cli enroll --user no-such-user-x --config "$C"
    check "unknown user -> exit 1, one line" eval 'rc_is 1 && one_error_line && has "no such user"'
    as_user "$HELPER" enroll --user root --finger left-thumb --config "$C"
    check "non-root enrolling another user -> refused" eval 'rc_is 1 && one_error_line && has "only root may enroll another user"'
    as_user "$HELPER" enroll --finger left-thumb --config "$C"
    check "non-root enrolling itself -> needs root, one line" eval 'rc_is 1 && one_error_line && has "must be run as root"'
    # sudo's SUDO_UID names the invoking user when root runs the command.
    rm -f "$SOCK"; python3 "$E2E/vsensor.py" "$SOCK" SCAN\ tu-rt SCAN\ tu-rt SCAN\ tu-rt SCAN\ tu-rt SCAN\ tu-rt >/dev/null 2>&1 & S=$!
    env SUDO_UID="$(id -u "$TUSER")" SUDO_USER="$TUSER" "$HELPER" enroll --finger right-thumb --config "$C" > "$T/cli.out" 2>&1
    RC=$?; wait $S; OUT=$(cat "$T/cli.out")
    check "through sudo (SUDO_UID) the invoking user is enrolled" eval 'rc_is 0 && test -f "$P/6"'
    cli enroll --user "$TUSER" --finger left-thumb --config "$T/nosensor.conf"
    check "no sensor -> exit 1, one line" eval 'rc_is 1 && one_error_line && has "no fingerprint reader found"'
    cli_scan "SCAN tu-lt|SCAN tu-lt|ERROR 0" enroll --user "$TUSER" --finger left-thumb --config "$C"
    check "sensor error mid-enroll -> exit 1, one line, nothing stored" \
        eval 'rc_is 1 && one_error_line && has "nothing was stored" && test ! -e "$P/1"'
    # Ctrl-C: SIGINT to the enrolling process after two stages.
    rm -f "$SOCK"; python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-lt" "SCAN tu-lt" >/dev/null 2>&1 & S=$!
    "$HELPER" enroll --user "$TUSER" --finger left-thumb --config "$C" > "$T/int.out" 2> "$T/int.err" & E=$!
    for _ in $(seq 200); do grep -q "stage 2/5" "$T/int.out" && break; sleep 0.05; done
    kill -INT "$E"; wait "$E"; RC=$?; wait $S 2>/dev/null
    OUT=$(cat "$T/int.out" "$T/int.err"); ERR=$(cat "$T/int.err")
    check "Ctrl-C mid-enroll -> exit 130, one line" eval 'rc_is 130 && one_error_line && has "interrupted"'
    check "Ctrl-C mid-enroll -> no print, no temporary file" eval 'test ! -e "$P/1" && test -z "$(find "$T/prints" -name "*.tmp*")"'
}
case_ "enroll" enroll_case

list_case() {
    start_case virtual_device
    cli list --user "$TUSER" --config "$C"
    check "list names each finger and its sensor" eval 'rc_is 0 && has "$TUSER: right-index-finger (virtual_device/0)" && has "$TUSER: right-thumb"'
    cli list --user "$TUSER" --json --config "$C"
    check "list --json is data" eval 'rc_is 0 && /usr/bin/python3 -c "import json,sys; d=json.load(open(\"$T/cli.out\")); sys.exit(0 if sorted(e[\"finger\"] for e in d)==[\"right-index-finger\",\"right-thumb\"] else 1)"'
    cli list --user "$NOPRINTS_USER" --config "$C"
    check "list: a user without prints says so" eval 'rc_is 0 && has "no fingers enrolled"'
    cli list --user no-such-user-x --config "$C"
    check "list: unknown user -> exit 1, one line" eval 'rc_is 1 && one_error_line && has "no such user"'
}
case_ "list" list_case

verify_case() {
    start_case virtual_device
    # virtual_device cannot identify: each print in turn, named (right-thumb 6 first, then 7).
    cli_scan "SCAN tu-ri|SCAN tu-ri" verify --user "$TUSER" --config "$C"
    check "verify: the finger -> exit 0 and which finger matched" eval 'rc_is 0 && has "Matched right-index-finger"'
    cli_scan "SCAN stranger|SCAN stranger" verify --user "$TUSER" --config "$C"
    check "verify: a stranger -> exit 1, not recognized, both prints tried" \
        eval 'rc_is 1 && has "not recognized" && has "Place your right thumb" && has "Place your right index finger"'
    cli status "$TUSER" --json --config "$C"
    check "verify counted no strike" has '"strikes":0'
    cli_scan "RETRY 1|SCAN tu-rt" verify --user "$TUSER" --config "$C"
    check "verify: a retry is a hint, then the match" eval 'rc_is 0 && has "Swipe was too short" && has "Matched right-thumb"'
    cli verify --user "$NOPRINTS_USER" --config "$C"
    check "verify: no prints -> exit 1, one line" eval 'rc_is 1 && one_error_line && has "no fingers enrolled"'
    cli verify --user "$TUSER" --device nope/9 --config "$C"
    check "verify --device unknown -> exit 2, names the sensors found" eval 'rc_is 2 && one_error_line && has "virtual_device/0"'
}
case_ "verify (no PAM, no strikes)" verify_case

disable_enable() {
    start_case virtual_device
    cli disable --user "$TUSER" --config "$C"
    check "disable -> exit 0, marker <state_dir>/<uid>.disabled root 0600" \
        eval 'rc_is 0 && test "$(stat -c %U:%a "$T/state/$UID_T.disabled")" = root:600'
    cli status "$TUSER" --json --config "$C"
    check "status: switched off, the password next" eval 'has "\"enabled\":false" && has "\"next\":\"password\""'
    pam marker "$TUSER" ""
    check "disabled -> PAM_AUTHINFO_UNAVAIL" has "$MSG_UNAVAIL"
    check "disabled -> the module started no helper" test ! -e "$MARKER"
    pam full "$TUSER" "$TPASS" "SCAN tu-ri"
    check "disabled -> no fingerprint prompt, the password authenticates" eval 'succeeded && lacks "Place your"'
    printf 'touchauth-request 1\nuser %s\nservice x\nfallback none\narg config=%s\nend\n' "$TUSER" "$C" \
        | "$HELPER" pam-verify > "$T/pv.out" 2>&1
    OUT=$(cat "$T/pv.out")
    check "disabled -> the helper itself refuses too (a locker's module cannot see the marker)" has "result biometryNotAvailable"
    as_user "$HELPER" disable --user root --config "$C"
    check "non-root switching another user -> refused" eval 'rc_is 1 && one_error_line && has "only root may switch"'
    cli_scan "SCAN stranger|SCAN stranger" enable --user "$TUSER" --config "$C"
    check "enable with a wrong finger -> exit 1, still off" eval 'rc_is 1 && test -e "$T/state/$UID_T.disabled"'
    cli_scan "SCAN tu-rt" enable --user "$TUSER" --config "$C"
    check "enable with a matching scan -> on" eval 'rc_is 0 && has "fingerprint on" && test ! -e "$T/state/$UID_T.disabled"'
    pam marker "$TUSER" ""
    check "(control) enabled -> the module starts the helper" test -e "$MARKER"
    rm -f "$MARKER"
    cli enable --user "$TUSER" --config "$C"
    check "enable when on -> exit 0, no scan" eval 'rc_is 0 && has "already on"'
}
case_ "disable / enable, and the module's skip (no helper started)" disable_enable

delete_case() {
    start_case virtual_device
    cli delete --user "$TUSER" --config "$C"
    check "delete without --finger/--all -> exit 2" eval 'rc_is 2 && one_error_line'
    cli delete --user "$TUSER" --finger left-thumb --config "$C"
    check "delete a finger not enrolled -> exit 1, one line" eval 'rc_is 1 && one_error_line && has "not enrolled"'
    cli delete --user "$TUSER" --finger thumb --config "$C"
    check "delete an unknown finger name -> exit 2" eval 'rc_is 2 && has "unknown finger"'
    cli delete --user "$TUSER" --finger right-thumb --config "$C"
    check "delete --finger -> that file gone, the other stays" eval 'rc_is 0 && test ! -e "$P/6" && test -e "$P/7"'
    cli delete --user "$TUSER" --all --config "$C"
    check "delete --all -> the user's print directory is gone (the module's cheap skip again)" eval 'rc_is 0 && test ! -e "$T/prints/$TUSER"'
    as_user "$HELPER" delete --user root --all --config "$C"
    check "non-root deleting another user's prints -> refused" eval 'rc_is 1 && has "only root may delete"'
}
case_ "delete" delete_case

unlock_case() {
    # A root-owned 0644 config in a 0755 directory, a root 0700 state dir holding her lockout.
    PUB=$(mktemp -d /tmp/touchauth-cli-pub.XXXXXX); chmod 0755 "$PUB"
    trap 'rm -rf "$T" "$PUB"' EXIT
    mkdir -m 0700 "$PUB/state"
    printf '%s\n' "print_dir = $T/prints" "state_dir = $PUB/state" > "$PUB/touchauth.conf"; chmod 0644 "$PUB/touchauth.conf"
    printf 'touchauth-state 1\nstrikes 5\nlocked_at 1700000000\npassword_at -\npassword_boot_id -\nprints_hash -\n' \
        > "$PUB/state/$UID_T"
    chmod 0600 "$PUB/state/$UID_T"; cp -p "$PUB/state/$UID_T" "$T/locked.before"
    as_user cat "$PUB/touchauth.conf"
    check "(setup) the user can read that config" eval 'rc_is 0 && has "state_dir = $PUB/state"'
    as_user "$HELPER" unlock "$TUSER" --config "$PUB/touchauth.conf"
    check "non-root unlock of her own lockout, the config readable -> exit 1, one line: must be run as root" \
        eval 'rc_is 1 && one_error_line && has "unlock: must be run as root"'
    OUT=$(cat "$PUB/state/$UID_T")
    check "...her state file unchanged: still locked" cmp -s "$T/locked.before" "$PUB/state/$UID_T"
    cli unlock "$TUSER" --config "$PUB/touchauth.conf"
    OUT="$OUT
    $(cat "$PUB/state/$UID_T" 2>&1)"
    check "(control) root's unlock with the same config clears it" \
        eval 'rc_is 0 && grep -qx "strikes 0" "$PUB/state/$UID_T" && grep -qx "locked_at -" "$PUB/state/$UID_T"'
}
case_ "unlock: root only, even where the user can read the config (as she can the installed one)" unlock_case

chip_case() {
    start_case
    store_scan "SCAN chip-a|SCAN chip-a|SCAN chip-a|SCAN chip-a|SCAN chip-a" enroll --user "$TUSER" --config "$SC"
    check "storage: enroll -> host file as the reference" eval 'rc_is 0 && test -f "$SP/7" && has "virtual_device_storage/0"'
    store_scan "INSERT chip-a|SCAN chip-a" verify --user "$TUSER" --config "$SC"
    check "storage: verify (identify on chip) names the finger" eval 'rc_is 0 && has "Matched right-index-finger"'
    store_scan "INSERT chip-a" list --user "$TUSER" --json --config "$SC"
    check "storage: list sees the chip's copy" has '"on_sensor":true'
    cli list --user "$TUSER" --config "$SC"
    check "storage: list reports a print whose chip copy is gone" has "MISSING from the sensor"
    cli doctor --user "$TUSER" --config "$SC"
    check "storage: doctor reports it too" eval 'grep -q "^WARN prints: .*MISSING" "$T/cli.out"'
    store_scan "INSERT chip-a|SCAN chip-a|SCAN chip-a|SCAN chip-a|SCAN chip-a|SCAN chip-a" enroll --user "$NOPRINTS_USER" --config "$SC"
    check "storage: another user's finger already on the chip -> refused, nothing stored" \
        eval 'rc_is 1 && one_error_line && has "already holds this finger" && test ! -e "$T/prints/$NOPRINTS_USER"'
    cli delete --user "$TUSER" --all --config "$SC"
    check "storage: delete removes the host file" eval 'rc_is 0 && test ! -e "$SP/7"'
}
case_ "a match-on-chip sensor (virtual_device_storage; its chip lives in the helper process)" chip_case

several_sensors() {
    start_case
    store_scan "SCAN chip-b|SCAN chip-b|SCAN chip-b|SCAN chip-b|SCAN chip-b" enroll --user "$TUSER" --device virtual_device_storage --config "$T/both.conf"
    check "--device chooses the sensor for enroll" eval 'rc_is 0 && test -f "$SP/7"'
    store_scan "INSERT chip-b|SCAN chip-b" verify --user "$TUSER" --config "$T/both.conf"
    check "verify uses the sensor that has the user's prints" eval 'rc_is 0 && has "virtual_device_storage/0"'
}
case_ "several sensors: the one with the user's prints; --device to choose" several_sensors

doctor_case() {
    start_case virtual_device_storage
    doctor_in "$T/sec-with" --user "$TUSER" --pam-dir "$T/pamd" --config "$T/doctor.conf"
    check "doctor: the sensor with its features" eval 'has "OK   sensor: virtual_device/0: Virtual device for debugging; swipe; identify: no; storage on chip: no" && has "OK   sensor: virtual_device_storage/0: Virtual device with storage and identification for debugging; swipe; identify: yes; storage on chip: yes"'
    check "doctor: an unknown config key" has "WARN config: $T/doctor.conf: unknown key 'colour'"
    check "doctor: a sensible stack" has "OK   pam: $T/pamd/good: touchauth before the password (pam_unix), authsucc after it: a succeeded password lifts a lockout"
    check "doctor: pam_unix first is flagged" has "WARN pam: $T/pamd/bad: pam_unix comes before pam_touchauth"
    check "doctor: the helper's ownership" has "OK   helper: $HELPER root"
    check "doctor: the user's prints (the chip's copy: this process's chip is empty)" has "WARN prints: $TUSER: right-index-finger on virtual_device_storage/0: MISSING"
    check "doctor: the lockout state" has "OK   lockout: $TUSER: not locked"
    check "doctor: the module found where PAM keeps its modules" has "OK   module: $SECDIR/pam_touchauth.so root 0644"
    check "doctor: this setup has WARNs and no FAIL -> exit 0, nothing on stderr" \
        eval 'rc_is 0 && test -z "$ERR" && ! grep -q "^FAIL" "$T/cli.out"'
    # The lockers the module asks first, in a directory of their own: i3lock's stack reaches the
    # module, swaylock's does not; the helper without and with the setuid bit.
    mkdir -p "$T/pamd-lk"
    cp "$T/pamd/common-auth" "$T/pamd-lk/"
    printf 'auth [success=done default=ignore] pam_touchauth.so\n@include common-auth\n' > "$T/pamd-lk/i3lock"
    printf '@include common-auth\n' > "$T/pamd-lk/swaylock"
    doctor_in "$T/sec-with" --user "$TUSER" --pam-dir "$T/pamd-lk" --config "$T/doctor.conf"
    check "doctor: i3lock reaches the module, the helper is not setuid -> WARN: no finger there, what is missing" \
        has "WARN locker: i3lock: no finger there: it runs PAM as the user and $HELPER is not setuid root (scripts/install.sh --setuid); the password works"
    check "doctor: swaylock's stack has no module -> the password only" \
        has "OK   locker: swaylock: its stack has no pam_touchauth.so: the password only"
    cp "$HELPER" "$T/sec-with/touchauth-setuid"; chmod 4755 "$T/sec-with/touchauth-setuid"
    { cat "$T/doctor.conf"; echo "helper = $T/sec-with/touchauth-setuid"; } > "$T/doctor-suid.conf"
    doctor_in "$T/sec-with" --user "$TUSER" --pam-dir "$T/pamd-lk" --config "$T/doctor-suid.conf"
    rm -f "$T/sec-with/touchauth-setuid"
    check "doctor: with the setuid helper, i3lock -> OK: Enter on the empty field is the finger, -e named" \
        has "OK   locker: i3lock: Enter on the empty field is the finger, a typed password goes straight through (not with -e / --ignore-empty-password: then only the password)"
    doctor_in "$T/sec-without" --user "$TUSER" --pam-dir "$T/pamd" --config "$T/doctor.conf"
    check "doctor: the same without the module -> that one FAIL line" \
        eval 'test "$(grep -c "^FAIL" "$T/cli.out")" -eq 1 && has "FAIL module: $SECDIR/pam_touchauth.so: No such file or directory"'
    check "...exit 1, and one line on stderr saying 1 check FAILED" eval 'rc_is 1 && one_error_line && has "doctor: 1 check FAILED"'
    cli doctor --user "$TUSER" --json --pam-dir "$T/pamd" --config "$T/nosensor.conf"
    check "doctor --json, no sensor -> a FAIL entry, exit 1" \
        eval 'rc_is 1 && /usr/bin/python3 -c "import json,sys; d=json.load(open(\"$T/cli.out\")); sys.exit(0 if any(e[\"level\"]==\"FAIL\" and e[\"check\"]==\"sensor\" for e in d) else 1)"'
}
case_ "doctor" doctor_case

doctor_fprintd() {
    start_case virtual_device_storage
    # libpam-fprintd's profile next to ours, as pam-auth-update writes common-auth: two finger
    # prompts, and pam_fprintd's match jumps over pam_unix to the authsucc line (issue 20).
    mkdir -p "$T/pamd-fp"
    printf '@include common-auth\n' > "$T/pamd-fp/login"
    printf 'auth [success=3 abort=die default=ignore] pam_touchauth.so\nauth [success=2 default=ignore] pam_fprintd.so max-tries=1 timeout=10\nauth [success=1 default=ignore] pam_unix.so nullok try_first_pass\nauth requisite pam_deny.so\nauth required pam_permit.so\nauth optional pam_touchauth.so authsucc\n' > "$T/pamd-fp/common-auth"
    doctor_in "$T/sec-with" --user "$TUSER" --pam-dir "$T/pamd-fp" --config "$T/doctor.conf"
    check "doctor: pam_fprintd next to the finger line -> FAIL, say how to switch" \
        has "FAIL pam: $T/pamd-fp/login: pam_touchauth.so and pam_fprintd.so (common-auth line 2) both ask for a finger: ours or pam_fprintd, not both (two prompts, six tries); pam-auth-update --disable fprintd"
    check "doctor: pam_fprintd's match reaches the authsucc line without a password -> FAIL, naming the line" \
        has "FAIL pam: $T/pamd-fp/login: a success of pam_fprintd.so (common-auth line 2) reaches the authsucc line without a password: a fingerprint would lift the lockout"
    check "...those two FAIL lines, exit 1, 'doctor: 2 checks FAILED' on stderr" \
        eval 'rc_is 1 && test "$(grep -c "^FAIL pam: " "$T/cli.out")" -eq 2 && has "doctor: 2 checks FAILED"'
}
case_ "doctor: libpam-fprintd's profile next to ours (issue 20)" doctor_fprintd

doctor_keyring() {
    start_case virtual_device_storage
    # login, gdm-password and gdm-fingerprint (examples/pam.d's) use the module and unlock GNOME's
    # keyring in their auth phase; sudo has the same lines but starts no session; lightdm has no
    # keyring line. The module directory has pam_gnome_keyring.so (a stand-in file: only whether it
    # is installed counts) and what gdm-fingerprint names.
    mkdir -p "$T/pamd-kr" "$T/sec-kr" "$T/dbus-fprintd" "$T/dbus-none"
    cp -a "$T/sec-with/." "$T/sec-kr/"
    for m in pam_nologin.so pam_succeed_if.so pam_permit.so pam_deny.so; do cp "$SECDIR/$m" "$T/sec-kr/"; done
    : > "$T/sec-kr/pam_gnome_keyring.so"
    : > "$T/dbus-fprintd/net.reactivated.Fprint.service"
    cp "$T/pamd/common-auth" "$T/pamd-kr/"
    kr_stack='auth requisite pam_nologin.so\nauth [success=done default=ignore] pam_touchauth.so\n@include common-auth\nauth optional pam_touchauth.so authsucc\nauth optional pam_gnome_keyring.so\n'
    for svc in login gdm-password sudo; do printf "$kr_stack" > "$T/pamd-kr/$svc"; done
    printf 'auth [success=done default=ignore] pam_touchauth.so\n@include common-auth\nauth optional pam_touchauth.so authsucc\n' > "$T/pamd-kr/lightdm"
    grep -v '^#' "$ROOT/examples/pam.d/gdm-fingerprint" > "$T/pamd-kr/gdm-fingerprint"
    kr_lines() { grep -c "^OK   keyring: " "$T/cli.out"; }
    DBUS_SERVICES="$T/dbus-fprintd" doctor_in "$T/sec-kr" --user "$TUSER" --pam-dir "$T/pamd-kr" --config "$T/doctor.conf"
    check "doctor: login unlocks the keyring -> OK, the finger not offered there, the line named" \
        has "OK   keyring: login: finger not offered here (keeps the keyring unlocked): pam_gnome_keyring.so (login line 5) unlocks it with the password; finger_at_keyring_login = yes offers the finger"
    check "doctor: ...gdm-password and gdm-fingerprint (the example's keyring line) too; sudo and lightdm get no keyring line" \
        eval 'has "OK   keyring: gdm-password: finger not offered here" && has "OK   keyring: gdm-fingerprint: finger not offered here" && [ "$(kr_lines)" = 3 ]'
    check "doctor: fprintd's daemon there, the example's gdm-fingerprint -> no gnome line" eval '! grep -q " gnome: " "$T/cli.out"'
    { cat "$T/doctor.conf"; echo "finger_at_keyring_login = yes"; } > "$T/doctor-kr.conf"
    DBUS_SERVICES="$T/dbus-fprintd" doctor_in "$T/sec-kr" --user "$TUSER" --pam-dir "$T/pamd-kr" --config "$T/doctor-kr.conf"
    check "doctor: finger_at_keyring_login = yes -> OK, finger offered: keyring stays locked" \
        eval 'has "OK   keyring: login: finger offered: keyring stays locked (pam_gnome_keyring.so, login line 5, gets no password from a finger; finger_at_keyring_login = yes)" && [ "$(kr_lines)" = 3 ]'
    rm "$T/sec-kr/pam_gnome_keyring.so"
    DBUS_SERVICES="$T/dbus-fprintd" doctor_in "$T/sec-kr" --user "$TUSER" --pam-dir "$T/pamd-kr" --config "$T/doctor.conf"
    check "doctor: pam_gnome_keyring not installed -> no keyring line (the finger everywhere)" eval '[ "$(kr_lines)" = 0 ]'
    DBUS_SERVICES="$T/dbus-none" doctor_in "$T/sec-kr" --user "$TUSER" --pam-dir "$T/pamd-kr" --config "$T/doctor.conf"
    check "doctor: gdm3 there, fprintd's daemon not -> WARN: GNOME's screens offer no finger without fprintd" \
        has "WARN gnome: GNOME's screens offer no finger without fprintd: GDM and the lock screen ask its daemon for a reader before they start gdm-fingerprint"
    printf 'auth requisite pam_nologin.so\nauth required pam_fprintd.so\nauth required pam_nosuch.so\nauth optional pam_also_missing.so\n' > "$T/pamd-kr/gdm-fingerprint"
    DBUS_SERVICES="$T/dbus-fprintd" doctor_in "$T/sec-kr" --user "$TUSER" --pam-dir "$T/pamd-kr" --config "$T/doctor.conf"
    check "doctor: gdm-fingerprint still naming pam_fprintd.so -> FAIL, the line named" \
        has "FAIL gnome: $T/pamd-kr/gdm-fingerprint line 2: gdm-fingerprint still names pam_fprintd.so: GNOME's login screen would run fprintd's prompt, not touchauth's"
    check "doctor: ...a required module there that is not installed -> FAIL; a missing optional one -> nothing" \
        eval 'has "FAIL gnome: $T/pamd-kr/gdm-fingerprint line 3: gdm-fingerprint names pam_nosuch.so, which is not installed" && ! has "pam_also_missing" && rc_is 1'
    rm -f "$T/pamd-kr/gdm-password"
    DBUS_SERVICES="$T/dbus-none" doctor_in "$T/sec-kr" --user "$TUSER" --pam-dir "$T/pamd-kr" --config "$T/doctor.conf"
    check "doctor: no gdm3 (no gdm-password) -> no gnome line, whatever fprintd" eval '! grep -q " gnome: " "$T/cli.out"'
}
case_ "doctor: the login keyring, GNOME's screens and fprintd (issue 36)" doctor_keyring

doctor_summary() {
    start_case virtual_device_storage
    summary_of() { tail -n 1 "$T/cli.out"; }
    doctor_in "$T/sec-with" --user "$TUSER" --pam-dir "$T/pamd" --config "$T/doctor.conf"
    WARNS=$(grep -c "^WARN" "$T/cli.out")
    check "doctor: the summary is the last line, every key in order" \
        eval 'test "$(summary_of)" = "touchauth doctor: WARN version=$VERSION user=$TUSER prints=1 sensors=2 pam=2 lockout=no enabled=yes fail=0 warn=$WARNS"'
    check "doctor: the version is the first line" eval 'test "$(head -n 1 "$T/cli.out")" = "OK   version: touchauth $VERSION"'
    doctor_in "$T/sec-without" --user "$TUSER" --pam-dir "$T/pamd" --config "$T/doctor.conf"
    check "doctor: a FAIL -> 'FAIL ... fail=1', still the last line of stdout" \
        eval 'rc_is 1 && summary_of | grep -Eq "^touchauth doctor: FAIL version=$VERSION user=$TUSER .* fail=1 warn=[0-9]+$"'
    doctor_in "$T/sec-with" --user "$TUSER" --json --pam-dir "$T/pamd" --config "$T/doctor.conf"
    check "doctor --json: first the version, last the summary with the same fields as the line" \
        eval '/usr/bin/python3 -c "
import json, sys
d = json.load(open(\"$T/cli.out\"))
s = d[-1][\"summary\"]
ok = d[0] == {\"level\": \"OK\", \"check\": \"version\", \"detail\": \"touchauth $VERSION\"} and d[-1][\"check\"] == \"summary\"
ok = ok and s == {\"status\": \"WARN\", \"version\": \"$VERSION\", \"user\": \"$TUSER\", \"prints\": 1, \"sensors\": 2, \"pam\": 2,
                  \"lockout\": \"no\", \"enabled\": \"yes\", \"fail\": 0, \"warn\": $WARNS}
sys.exit(0 if ok and d[-1][\"detail\"].startswith(\"touchauth doctor: WARN \") else 1)"'
    cli disable --user "$TUSER" --config "$T/doctor.conf"
    doctor_in "$T/sec-with" --user "$TUSER" --pam-dir "$T/pamd" --config "$T/doctor.conf"
    check "doctor: a user switched off -> enabled=no" eval 'summary_of | grep -q " enabled=no "'
    rm -f "$T/state/$(id -u "$TUSER").disabled"
}
case_ "doctor's summary: the last line, stable keys, untranslated; --json's last element" doctor_summary

version_case() {
    start_case virtual_device_storage
    check "pam/version.h defines TOUCHAUTH_VERSION" eval 'grep -Eqx "[0-9]+\.[0-9]+\.[0-9]+" <<<"$VERSION"'
    cli --version
    check "--version -> 'touchauth VERSION' on stdout, exit 0" eval 'rc_is 0 && test "$OUT" = "touchauth $VERSION"'
    cli version
    check "version (the word, as help) -> the same" eval 'rc_is 0 && test "$OUT" = "touchauth $VERSION"'
    cli --help
    check "--help names --version" has "touchauth --help | --version"
    DRIVE_DEBUG=1 drive marker "" "auth"
    check "the module's debug log names the version" has "pam_touchauth $VERSION, helper $T/marker-helper"
    rm -f "$MARKER"
    check "CHANGELOG.md's newest entry is this version" eval 'grep -m 1 "^## " "$ROOT/CHANGELOG.md" | grep -qF "$VERSION"'
    OUT=$(head -n 1 "$ROOT/debian/changelog" 2>/dev/null || echo "touchauth ($VERSION) (no debian/ here)")
    check "debian/changelog (if any) starts with this version" eval 'grep -Eq "^touchauth \($VERSION[-)~+]" <<<"$OUT"'
    # The package's version is debian/changelog's (dpkg takes it from nowhere else; package.sh names
    # its files by it): debian/rules' build refuses a changelog that says another than version.h.
    # The rule reads the version through dpkg's pkg-info.mk (DEB_VERSION) when make runs, so the
    # command is expanded again in the directory whose changelog it must refuse.
    RULES_CHECK=$(make -s -n -f "$ROOT/debian/rules" override_dh_auto_build | grep 'version.h')
    OUT="debian/rules: $RULES_CHECK"
    check "debian/rules' version check passes here (changelog = pam/version.h)" \
        eval '[ -n "$RULES_CHECK" ] && (cd "$ROOT" && sh -c "$RULES_CHECK")'
    check "...and fails on a changelog that says another version" \
        eval '! (cd "$T" && mkdir -p vcheck/debian vcheck/pam && cp "$ROOT/pam/version.h" vcheck/pam/ \
            && sed "1s/($VERSION/(9.9.9/" "$ROOT/debian/changelog" > vcheck/debian/changelog && cd vcheck \
            && sh -c "$(make -s -n -f "$ROOT/debian/rules" override_dh_auto_build | grep version.h)")'
}
case_ "--version: one place (pam/version.h), and every place agrees" version_case

language_case() {
    start_case virtual_device_storage
    OUT=$("$ROOT/scripts/install.sh" --no-build --destdir "$STAGE" 2>&1)
    check "install.sh --destdir stages the catalogs" test -f "$STAGE/usr/share/locale/zh_CN/LC_MESSAGES/touchauth.mo"
    # in_locale ENV... -- ARGS...: the helper with only ENV (as a fresh shell), the staged catalogs
    # over /usr/share/locale (a private mount namespace: the system's stay untouched).
    in_locale() {
        local envs=()
        while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
        unshare -m sh -c 'mount --bind "$1" /usr/share/locale && shift && exec "$@"' sh "$STAGE/usr/share/locale" \
            env -i "${envs[@]}" "$HELPER" "$@" > "$T/cli.out" 2> "$T/cli.err"
        RC=$?; ERR=$(cat "$T/cli.err"); OUT=$(cat "$T/cli.out" "$T/cli.err")
    }
    in_locale LANGUAGE=zh_CN -- status "$TUSER" --config "$C"
    check "LANGUAGE=zh_CN touchauth status (no LANG: the C locale) -> Simplified Chinese" \
        eval 'rc_is 0 && has "失败次数：连续 0 次" && has "下次验证："'
    in_locale LANG=C.UTF-8 LANGUAGE=zh_TW -- status "$TUSER" --config "$C"
    check "LANGUAGE=zh_TW touchauth status -> Traditional Chinese" eval 'rc_is 0 && has "失敗次數：連續 0 次" && has "下次驗證："'
    in_locale -- status "$TUSER" --config "$C"
    check "(control) no LANGUAGE -> English" eval 'has "strikes: 0 in a row"'
    cli status "$TUSER" --json --config "$C"; JSON_C=$OUT
    in_locale LANGUAGE=zh_CN -- status "$TUSER" --json --config "$C"
    check "status --json is the same in Chinese (keys and values untranslated)" test "$OUT" = "$JSON_C"
    in_locale LANGUAGE=zh_CN -- enroll --user "$TUSER" --finger left-pinky --config "$C"
    check "zh_CN: an error is one Chinese line, the same exit status" eval 'rc_is 2 && one_error_line && has "未知手指“left-pinky”"'
    in_locale LANGUAGE=zh_CN -- --help
    check "zh_CN: --help in Chinese, the synopses as they are" eval 'rc_is 0 && has "用法：" && has "  touchauth enroll [--user USER]"'
    in_locale LANGUAGE=zh_TW -- frobnicate
    check "zh_TW: unknown command in Traditional Chinese" eval 'rc_is 2 && has "未知的命令「frobnicate」"'
    # In the C locales glibc ignores LANGUAGE (2.41 in C.UTF-8 too): the command reads the catalog
    # itself then, and LANGUAGE's names become paths. A value with a "/" never reaches it (the
    # helper keeps only locale-like values); ".." has none and names the locale directory's parent:
    # a catalog there (here /usr/share, a copy in a private mount) is never read.
    mkdir -p "$T/share/LC_MESSAGES"
    cp -a "$STAGE/usr/share/locale" "$T/share/locale"
    cp "$STAGE/usr/share/locale/zh_CN/LC_MESSAGES/touchauth.mo" "$T/share/LC_MESSAGES/"
    unshare -m sh -c 'mount --bind "$1" /usr/share && shift && exec "$@"' sh "$T/share" \
        env -i LANGUAGE=..:.:zh "$HELPER" status "$TUSER" --config "$C" > "$T/cli.out" 2>&1
    RC=$?; OUT=$(cat "$T/cli.out")
    check "LANGUAGE=..:.:zh (names that leave the locale directory; a language with no catalog) -> no catalog read: English" \
        eval 'rc_is 0 && has "strikes: 0 in a row"'
    cli doctor --user "$TUSER" --pam-dir "$T/pamd" --config "$T/doctor.conf"; DOCTOR_C=$(tail -n 1 "$T/cli.out")
    in_locale LANGUAGE=zh_CN -- doctor --user "$TUSER" --pam-dir "$T/pamd" --config "$T/doctor.conf"
    check "zh_CN doctor: details in Chinese, levels and check names as they are" has "OK   lockout: $TUSER：未锁定"
    check "zh_CN doctor: the summary line is the English one, byte for byte" eval 'test "$(tail -n 1 "$T/cli.out")" = "$DOCTOR_C"'
}
case_ "the command's own output in the user's language (catalogs installed as install.sh installs them)" language_case

# complete WORD...: the bash completion's answer for the command line WORDs (the last one is
# the word being completed), one a line.
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _touchauth; printf "%s\n" "${COMPREPLY[@]}"' \
        sh "$ROOT/completions/touchauth.bash" touchauth "$@" | sort
}
# The commands of --help that people type (the module runs pam-verify and pam-account).
help_commands() { sed -n 's/^  touchauth \([a-z][a-z-]*\).*/\1/p' "$T/help.txt" | grep -v '^pam-'; }
help_options() { grep "^  touchauth $1 " "$T/help.txt" | grep -o -- '--[a-z][a-z-]*' | sort -u; }
ZSH_FILE="$ROOT/completions/touchauth.zsh"
# zsh_complete WORD...: the zsh completion called for the command line WORDs and an empty word
# being completed, outside a completion widget: zsh's completion functions (_describe, compadd,
# _arguments) are stubs that print what they were given, one a line.
zsh_complete() {
    zsh -f -c '
        _describe() { local n=${@[-1]}; local -a c; c=("${(@P)n}"); print -rl -- "${c[@]%%:*}" }
        compadd() { shift; print -rl -- "$@" }
        _arguments() { print -rl -- "$@" }
        _users() { }; _files() { }; _directories() { }
        file=$1; shift
        words=(touchauth "$@" "") CURRENT=$(( $# + 2 ))
        source "$file"' zsh "$ZSH_FILE" "$@" 2>&1
}
completion_case() {
    # (install.sh --destdir's tree, for the last check: the language case stages it, or this one)
    [ -d "$STAGE" ] || "$ROOT/scripts/install.sh" --no-build --destdir "$STAGE" > /dev/null 2>&1
    "$HELPER" --help > "$T/help.txt"
    check "bash: the first word offers every command of --help, --help and --version" \
        eval 'test "$(complete_words "")" = "$({ help_commands; echo --help; echo --version; } | sort)"'
    for cmd in $(help_commands); do
        OUT=$(diff <(complete_words "$cmd" --) <({ help_options "$cmd"; echo --help; } | sort) 2>&1)
        check "bash: '$cmd --' offers exactly its options of --help" test -z "$OUT"
    done
    OUT=$(complete_words enroll --finger "")
    check "bash: --finger offers the fingers of --help" \
        eval 'test "$OUT" = "$(sed -n "s/^fingers: //p" "$T/help.txt" | tr -d " " | tr , "\n" | sort)"'
    check "bash: --user offers user names" eval 'complete_words enroll --user "${TUSER:0:8}" | grep -qx "$TUSER"'
    check "bash: --user=VALUE too" eval 'complete_words list --user = "${TUSER:0:8}" | grep -qx "$TUSER"'
    check "bash: status's USER word offers user names" eval 'complete_words status "${TUSER:0:8}" | grep -qx "$TUSER"'
    check "bash: an option given is not offered again" eval '! complete_words enroll --replace -- | grep -qx -- --replace'
    for cmd in $(help_commands); do
        # its case branch: from the line "cmd)" (or "a|cmd)") to the ";;" that ends it
        branch=$(awk -v c="$cmd" '{ n = split($1, names, "|"); sub(/\)$/, "", names[n]) }
            !on && $1 ~ /\)$/ { for (i = 1; i <= n; i++) if (names[i] == c) on = 1 }
            on { print } on && /;;/ { exit }' "$ZSH_FILE")
        missing=""; for o in $(help_options "$cmd"); do grep -q -- "$o" <<<"$branch" || missing+=" $o"; done
        OUT="branch: $branch; missing:$missing"
        check "zsh: '$cmd' is a command with every option of --help" eval 'grep -q "'"'"'$cmd:" "$ZSH_FILE" && test -n "$branch" && test -z "$missing"'
    done
    OUT=$(zsh -n "$ZSH_FILE" 2>&1)
    check "zsh: the file parses (zsh -n)" test -z "$OUT"
    OUT=$(zsh_complete)
    check "zsh, called: the first word offers every command of --help, --help and --version" \
        eval 'test "$(sort <<<"$OUT")" = "$({ help_commands; echo --help; echo --version; } | sort)"'
    for cmd in $(help_commands); do
        OUT=$(zsh_complete "$cmd")
        offered=$(sed -n 's/^\(--[a-z][a-z-]*\)[=[].*/\1/p' <<<"$OUT" | sort -u)
        check "zsh, called: '$cmd' offers exactly its options of --help" test "$offered" = "$(help_options "$cmd")"
    done
    OUT=$(zsh_complete enroll)
    check "zsh, called: --finger offers the fingers of --help" \
        eval 'grep -q -- "--finger=.*($(sed -n "s/^fingers: //p" "$T/help.txt" | sed "s/, / /g"))" <<<"$OUT"'
    OUT=$("$ROOT/scripts/install.sh" --list)
    check "install.sh --list (what uninstall.sh removes) names both completion files" \
        eval 'grep -qx "/usr/share/bash-completion/completions/touchauth" <<<"$OUT" && grep -qx "/usr/share/zsh/vendor-completions/_touchauth" <<<"$OUT"'
    check "install.sh --destdir staged them" \
        eval 'test -f "$STAGE/usr/share/bash-completion/completions/touchauth" && test -f "$STAGE/usr/share/zsh/vendor-completions/_touchauth"'
}
case_ "shell completion (completions/): what --help lists, no more, no less" completion_case

summary
