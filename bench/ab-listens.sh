#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ab-listens.sh HELPER_A HELPER_B [RUNS]: spawn -> the sensor listens (the way to the prompt) of
# two helper builds, interleaved (bench/ab_listens.py), under three system buses: none, a bus
# without fprintd, fprintd running (idle) on it. Each in a mount namespace of its own with tmpfs
# over /run/dbus (the bus listens at the system bus's path, which the helper asks about fprintd:
# decision 0033) and /run/touchauth. Root; makes the user touchauth-bench-ab and deletes it.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '3,7p' "$0"; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=$(readlink -f "$1") B=$(readlink -f "$2") RUNS=${3:-200}
U=touchauth-bench-ab
made=""
id "$U" > /dev/null 2>&1 || { useradd -M -s /usr/sbin/nologin "$U" && made=1; }
echo "$U:bench-ab-7" | chpasswd
for mode in none bus fprintd; do
    echo "== system bus: $mode"
    unshare -m --propagation private bash -s "$mode" "$A" "$B" "$RUNS" "$U" "$ROOT" <<'NS'
set -u
mode=$1 A=$2 B=$3 RUNS=$4 U=$5 ROOT=$6
T=$(mktemp -d /tmp/touchauth-ab.XXXXXX); chmod 0700 "$T"
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait; rm -rf "$T"' EXIT
[ -d /run/dbus ] || mkdir -m 0755 /run/dbus
mount -t tmpfs -o mode=0755,size=1m ab /run/dbus
[ -d /run/touchauth ] || mkdir -m 0700 /run/touchauth
mount -t tmpfs -o mode=0700,size=64k ab /run/touchauth
mkdir "$T/a" "$T/b" && cp "$A" "$T/a/touchauth" && cp "$B" "$T/b/touchauth"
mkdir -m 0700 "$T/prints" "$T/state"
printf 'virtual_device = %s\nprint_dir = %s\nstate_dir = %s\nlid_dir = %s\nlockout_threshold = 1000\npassword_after_boot = no\npassword_max_age = 0\npassword_after_enroll_change = no\n' \
    "$T/vdev.sock" "$T/prints" "$T/state" "$T/no-lid" > "$T/c.conf"
python3 "$ROOT/tests/e2e/vsensor.py" "$T/vdev.sock" "SCAN ab-finger" "SCAN ab-finger" "SCAN ab-finger" "SCAN ab-finger" "SCAN ab-finger" &
"$T/b/touchauth" enroll --user "$U" --finger right-index-finger --config "$T/c.conf" > /dev/null || exit 1
wait
printf 'touchauth-request 1\nuser %s\nservice solo\nfallback none\narg config=%s/c.conf\nend\n' "$U" "$T" > "$T/req"
source "$ROOT/tests/e2e/private_bus.sh"
[ "$mode" = none ] || private_bus "$T" ab unix:path=/run/dbus/system_bus_socket || exit 1
if [ "$mode" = fprintd ]; then
    /usr/bin/python3 -m dbusmock --system --template polkitd > /dev/null 2>&1 & PIDS+=($!)
    mkdir -m 0700 "$T/fp"
    DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket STATE_DIRECTORY="$T/fp" FP_VIRTUAL_DEVICE="$T/fp.sock" \
        FP_DRIVERS_WHITELIST=virtual_device FP_DEVICE_EMULATION=1 /usr/libexec/fprintd --no-timeout > /dev/null 2>&1 & PIDS+=($!)
    for _ in $(seq 100); do fprintd-list "$U" > /dev/null 2>&1 && break; sleep 0.05; done
fi
/usr/bin/python3 "$ROOT/bench/ab_listens.py" "$T/req" "$T/vdev.sock" "$RUNS" "$T/a/touchauth" "$T/b/touchauth" \
    | sed -e "s|^touchauth \( *\)|\1|" | paste -d' ' <(printf 'A\nB\n') -
NS
done
[ -z "$made" ] || userdel "$U"
