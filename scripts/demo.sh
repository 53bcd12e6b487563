#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole story on libfprint's virtual sensor, under pam_wrapper: nothing on the system is
# changed outside a temporary directory (no /etc/pam.d edit, no user created; the password is
# checked by a tiny module built into the temp dir, which reads it as pam_unix does).
# Needs root: the helper trusts only root-owned config and print files.
source "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
    echo "demo.sh: run it as root (sudo scripts/demo.sh): the helper trusts only root-owned files." >&2
    exit 1
fi
ensure_packages $BUILD_PACKAGES $TEST_PACKAGES
[ -x "$HELPER_BIN" ] && [ -f "$MODULE_SO" ] || "$ROOT/scripts/build.sh" >/dev/null
source "$ROOT/tests/e2e/lib.sh"

ME=$(id -un)
PASSWORD="demo password"
# The demo's password module: pam_get_authtok asks for the password and keeps it as
# PAM_AUTHTOK, as pam_unix does (the recorder needs a password on the handle: docs/POLICY.md#what-lifts-a-lockout;
# pam_wrapper's pam_matrix keeps it to itself), then it is compared with the demo's password.
printf '%s\n' '#include <security/pam_ext.h>' '#include <security/pam_modules.h>' '#include <string.h>' \
    'PAM_EXTERN int pam_sm_authenticate(pam_handle_t *h, int f, int c, const char **v)' \
    '{ const char *pw = NULL; (void)f; if (c < 1 || pam_get_authtok(h, PAM_AUTHTOK, &pw, NULL) != PAM_SUCCESS || pw == NULL) return PAM_AUTH_ERR;' \
    '  return strcmp(pw, v[0]) == 0 ? PAM_SUCCESS : PAM_AUTH_ERR; }' \
    'PAM_EXTERN int pam_sm_setcred(pam_handle_t *h, int f, int c, const char **v) { (void)h; (void)f; (void)c; (void)v; return PAM_SUCCESS; }' \
    > "$T/demopass.c"
gcc -shared -fPIC -Wall -o "$T/pam_demopass.so" "$T/demopass.c" -lpam
PASSMOD="$T/pam_demopass.so [$PASSWORD]"
# require_password_set=no: the demo's password lives in the demo's module, not in /etc/shadow.
write_config "$T/touchauth.conf" "reason=demo-sudo wants to run a command as root" \
    "state_dir=$T/state" "require_password_set=no"
ARGS="config=$T/touchauth.conf helper=$HELPER"
# The authsucc line records a password that succeeded (the whole stack must succeed):
# it lifts the lockout and restarts the trust rules, as a passcode does on an iPhone.
service demo-sudo "auth [success=done abort=die default=ignore] $MODULE $ARGS" \
                  "auth requisite $PASSMOD" \
                  "auth optional $MODULE authsucc $ARGS"
PAM_RUNNER="python3 $E2E/ptyout.py"   # stdout and stderr in the order the user sees them
PAM_OPS="authenticate acct_mgmt"      # as sudo does: the account phase follows a success

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
show() {  # what the user saw, and the verdict
    grep -v -e '^pamtester: invoking' -e '^pamtester: performing' -e '^PWRAP_' -e 'account management done' \
        "$T/out" | sed 's/^/    | /'
    if succeeded; then printf "    => PAM_SUCCESS (%.2f s)\n" "$SECONDS_TAKEN"; else echo "    => refused"; fi
}
status() { "$HELPER" status "$ME" --config "$T/touchauth.conf" | sed 's/^/    $ /'; }

say "0. Setting up in $T: a virtual fingerprint sensor; $ME's password is \"$PASSWORD\"."
echo "   Stack:  auth [success=done abort=die default=ignore] pam_touchauth.so"
echo "           auth requisite pam_demopass.so (the password, read as pam_unix reads it)"
echo "           auth optional pam_touchauth.so authsucc (records a password that succeeded)"

say "1. Enroll $ME's right index finger (five touches of the virtual finger 'my-finger')."
enroll "$ME" right-index-finger my-finger && sed 's/^/    | /' "$T/enroll.out"
"$HELPER" list --user "$ME" --config "$T/touchauth.conf" | sed 's/^/    | /'

say "2. The first sudo after enrolling: like an iPhone after a restart or a new finger, the password first."
pam demo-sudo "$ME" "$PASSWORD" "SCAN my-finger"; show

say "3. From now on the finger: in, no password typed."
pam demo-sudo "$ME" "" "SCAN my-finger"; show

say "4. A wrong finger, three times: 'try again' twice, then the password (which clears the strikes)."
pam demo-sudo "$ME" "$PASSWORD" "SCAN someone-else" "SCAN someone-else" "SCAN someone-else"; show

say "5. The sensor asks to centre the finger (a hint, not a strike), then the right finger."
pam demo-sudo "$ME" "" "RETRY 2" "SCAN my-finger"; show

say "6. Five wrong fingers in a row (three, a mistyped password, two more): fingerprints locked."
pam demo-sudo "$ME" "typo" "SCAN someone-else" "SCAN someone-else" "SCAN someone-else"; show
pam demo-sudo "$ME" "typo" "SCAN someone-else" "SCAN someone-else"; show
status
say "7. Locked: the sensor is not even opened, the right finger is not asked for; the password unlocks."
pam demo-sudo "$ME" "$PASSWORD" "SCAN my-finger"; show
status
pam demo-sudo "$ME" "" "SCAN my-finger"; show

say "8. Nobody touches the sensor (timeout=3): the password prompt comes after 3 s."
service demo-slow "auth [success=done abort=die default=ignore] $MODULE $ARGS timeout=3" \
                  "auth required $PASSMOD"
PAM_OPS=authenticate pam demo-slow "$ME" "$PASSWORD"; show

say "9. A remote session (PAM_RHOST=203.0.113.9): straight to the password, no sensor, no helper."
PAM_ITEMS="-I rhost=203.0.113.9" pam demo-sudo "$ME" "$PASSWORD"; show

say "10. The sensor is unplugged in the middle of the scan: the password."
pam demo-sudo "$ME" "$PASSWORD" "UNPLUG"; show

say "11. The helper crashes: never a way in, always the password."
printf '#!/bin/sh\necho "touchauth 1"\nkill -SEGV $$\n' > "$T/crashing-helper"; chmod 0755 "$T/crashing-helper"
service demo-crash "auth [success=done abort=die default=ignore] $MODULE config=$T/touchauth.conf helper=$T/crashing-helper" \
                   "auth required $PASSMOD"
PAM_OPS=authenticate pam demo-crash "$ME" "wrong password"; show
echo "    (a wrong password here: nothing gets in)"

say "Done. Nothing outside $T was touched, and it is removed now."
