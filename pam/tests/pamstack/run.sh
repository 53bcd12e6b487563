#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pam/tests/pamstack/run.sh: the differential test of the PAM stack reader (pam/pamstack.c)
# against the real libpam (pamstack_diff.c says how). The corpus: the hand-made cases
# (cases.sh: issue 50's list and libpam's corners), every service of this machine's /etc/pam.d
# and every file of /usr/share/pam-configs read as a service; with KEYRING_C=path the keyring
# rule of that keyring.c is held to libpam over the cases too (the default: pam/keyring.c).
# Prints each check and "N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pam=$(cd "$here/../.." && pwd)
work=$(mktemp -d /tmp/pamstack-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
moddir=$(dirname "$(ls /lib/*/security/pam_unix.so /lib/security/pam_unix.so 2>/dev/null | head -1)")/
CC=${CC:-gcc}
$CC -O1 -g -shared -fPIC -o "$work/recorder.so" "$here/recorder_module.c" &&
$CC -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$pam" -rdynamic -o "$work/diff" \
    "$here/pamstack_diff.c" "$pam/pamstack.c" "${KEYRING_C:-$pam/keyring.c}" "$pam/clients.c" \
    "$pam/config.c" "$pam/config_parse.c" "$pam/config_file.c" -lpam -ldl ||
    { echo "FAIL - build"; echo "0 passed, 1 failed"; exit 1; }
"$here/cases.sh" "$work/cases"
passed=0 failed=0
run() {  # run ARGS...: one driver run, its lines shown, its sums added
    local out
    out=$("$work/diff" "$@" 2>/dev/null)
    echo "$out" | grep -v ' passed, '
    passed=$((passed + $(echo "$out" | sed -n 's/^\([0-9]*\) passed.*/\1/p')))
    failed=$((failed + $(echo "$out" | sed -n 's/.* passed, \([0-9]*\) failed.*/\1/p')))
}
for c in "$work/cases"/*; do
    echo "== case $(basename "$c")"
    run "$work/recorder.so" "$c" "$moddir" svc
    run -k "$work/recorder.so" "$c" "$moddir" svc
done
echo "== /etc/pam.d"
run "$work/recorder.so" /etc/pam.d "$moddir" $(ls /etc/pam.d)
if [ -d /usr/share/pam-configs ]; then
    echo "== /usr/share/pam-configs (each file read as a service)"
    run "$work/recorder.so" /usr/share/pam-configs "$moddir" $(ls /usr/share/pam-configs)
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
