#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bed.sh DEVICES PCAP CMD...: runs CMD in a umockdev testbed (tests/e2e/usb.sh) holding the USB
# devices DEVICES describe (files in umockdev-record's format, comma-separated), the USB traffic
# of the reader at USB_PORT replayed from PCAP ("-": no replay, so every transfer fails).
# Inside the testbed it first writes BED_HELPER: a script that runs HELPER in this testbed
# (umockdev's preload, its UMOCKDEV_DIR, and KEEPENV, which puts UMOCKDEV_DIR back after the
# helper empties its environment), for the module's helper= option and for direct runs.
# (No virtual reader joins a real one: with one configured the helper loads only those drivers.)
set -eu
if [ "$1" = --inside ]; then
    shift
    printf '#!/bin/sh\nexec env LD_PRELOAD=%s UMOCKDEV_DIR=%s %s "$@"\n' \
        "$LD_PRELOAD:$KEEPENV" "$UMOCKDEV_DIR" "$HELPER" > "$BED_HELPER"
    chmod 0755 "$BED_HELPER"
    exec "$@"
fi
devices=$1 pcap=$2
shift 2
replay=""
[ "$pcap" = - ] || replay="-p $USB_PORT=$pcap"
descriptions=""
for dev in $(echo "$devices" | tr , ' '); do descriptions="$descriptions -d $dev"; done
# shellcheck disable=SC2086  # word lists (the suite's paths have no blanks)
exec umockdev-run $descriptions $replay -- "$0" --inside "$@"
