# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# GDM's side of the two GDM suites (clients_gdm.sh: GDM's workers; clients_gnome.sh: GNOME's
# lock screen, with a GDM stand-in), sourced by both after lib.sh: the test user with a print,
# GDM's two PAM stacks, clients/gdmworker.c and the sensor's taps. PY: the python that runs
# vsensor.py and the socket probe (default python3).

# gdm_user: the test user (TUID), a print of tu-right-index, the config in CONF (the trust rules
# off: each has its own suite; the lockout as shipped, 5), the state dir STATE; FINGER, ELSE,
# PROMPT and LOCKED, what the cases send and expect.
gdm_user() {
    make_user "$TUSER" "$TPASS"
    TUID=$(id -u "$TUSER")
    CONF="$T/touchauth.conf"
    STATE="$T/state"
    mkdir -m 0700 "$STATE"
    write_config "$CONF" "helper=$HELPER" "state_dir=$STATE" "password_after_boot=no" \
        "password_max_age=0" "password_after_enroll_change=no"
    enroll "$TUSER" right-index-finger tu-right-index
    check "(setup) enroll stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"
    FINGER="SCAN tu-right-index"
    ELSE="SCAN someone-else"
    PROMPT="Place your finger on the fingerprint reader"
    LOCKED="Too many failed attempts. Enter your password to use your fingerprint again."
}

# The two stacks. gdm_fingerprint: examples/pam.d/gdm-fingerprint's auth lines (the module's path
# and `config=... debug` added; pam_gnome_keyring only where it is installed).
gdm_fingerprint() {
    grep '^auth' "$ROOT/examples/pam.d/gdm-fingerprint" | sed "s|pam_touchauth.so|$MODULE config=$CONF debug|" |
        if ls /lib/*/security/pam_gnome_keyring.so > /dev/null 2>&1; then cat; else grep -v pam_gnome_keyring; fi
    echo "account required pam_permit.so"
}
# gdm_password [finger|norecord]: gdm3's gdm-password (pam_nologin, pam_succeed_if, @include
# common-auth), common-auth as pam-auth-update writes it with touchauth-unlock (pam_unix, then
# the authsucc line); finger: with `--enable touchauth` too (our line first); norecord: without
# the authsucc line.
gdm_password() {
    printf '%s\n' "auth requisite pam_nologin.so" "auth required pam_succeed_if.so user != root quiet_success"
    if [ "${1:-}" = finger ]; then
        echo "auth [success=2 abort=die default=ignore] $MODULE config=$CONF debug"
        echo "auth [success=1 default=ignore] pam_unix.so nullok try_first_pass nodelay"
    else
        echo "auth [success=1 default=ignore] pam_unix.so nullok nodelay"
    fi
    printf '%s\n' "auth requisite pam_deny.so" "auth required pam_permit.so"
    [ "${1:-}" = norecord ] || echo "auth optional $MODULE authsucc config=$CONF debug"
    echo "account required pam_permit.so"
}
# gdm_stacks DIR [finger|norecord]: both stacks in DIR (a pam_wrapper service directory).
gdm_stacks() {
    mkdir -p "$1"
    gdm_fingerprint > "$1/gdm-fingerprint"
    gdm_password "${2:-}" > "$1/gdm-password"
}
# gdm_example_line DIR: a step, DIR's gdm-fingerprint has the example's line.
gdm_example_line() {
    check "(setup) gdm-fingerprint has the example's touchauth line (required, fallback_title= hidden)" \
        grep -q "^auth *required *$MODULE config=$CONF debug timeout=600 fallback_title=\$" "$1/gdm-fingerprint"
}

# gdm_worker FILE: clients/gdmworker.c built there.
gdm_worker() {
    gcc -O2 -Wall -Wextra -o "$1" "$E2E/clients/gdmworker.c" -lpam
    check "(setup) clients/gdmworker.c builds" test -x "$1"
}

# listening: someone listens on the sensor's socket (a helper holds the sensor open).
listening() {
    "${PY:-python3}" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError:
    sys.exit(1)' "$SOCK"
}
# touch_sensor CMDS...: vsensor.py sends them in the background (lib.sh's sensor_start would first
# remove the socket a waiting helper already listens on); sensor_stop ends it.
touch_sensor() { "${PY:-python3}" "$E2E/vsensor.py" "$SOCK" "$@" > "$T/vsensor.out" 2>&1 & SENDER=$!; }
