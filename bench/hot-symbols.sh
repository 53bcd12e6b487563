#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes bench/hot-symbols.txt: the functions of the helper that a prompt runs, in the order it
# first runs them, for the link's --symbol-ordering-file (scripts/build.sh). lld puts them first
# in .text, so a prompt touches a few 64 KB windows of code instead of most of the binary:
# less memory (peak RSS) and less to read from disk on a cold start (bench/README.md, "Code
# layout"). Run it after a change that moves much code; a stale list costs only that gain
# (a name that is gone is skipped), never correctness.
#   bench/hot-symbols.sh        (root, on Debian 12 or 13, from the checkout; installs valgrind)
# How: a private virtual sensor, root's print enrolled in a temp print_dir, then one `pam-verify`
# under valgrind's callgrind: a wrong finger, then the right one. The names are callgrind's
# function names in the helper (mangled), first call first.
source "$(dirname "$0")/../scripts/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "hot-symbols.sh: run as root" >&2; exit 1; }
ensure_packages $BUILD_PACKAGES valgrind python3 binutils
"$ROOT/scripts/build.sh" > /dev/null

T=$(mktemp -d /tmp/touchauth-hot.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 0711 "$T"
mkdir -m 0700 "$T/state"
mkdir -m 0755 "$T/prints"
cat > "$T/touchauth.conf" <<EOF
virtual_device = $T/sensor
print_dir = $T/prints
state_dir = $T/state
password_after_boot = no
password_max_age = 0
password_after_enroll_change = no
require_password_set = no
EOF
chmod 0644 "$T/touchauth.conf"
VSENSOR="$ROOT/tests/e2e/vsensor.py"

"$HELPER_BIN" enroll --user root --finger right-index-finger --config "$T/touchauth.conf" > "$T/enroll.out" 2>&1 &
python3 "$VSENSOR" "$T/sensor" "SCAN hot" "SCAN hot" "SCAN hot" "SCAN hot" "SCAN hot" > /dev/null 2>&1
wait $! || { cat "$T/enroll.out"; echo "hot-symbols.sh: enroll failed" >&2; exit 1; }

# valgrind 3.19/3.24 cannot read this toolchain's DWARF: the symbol table is enough.
strip --strip-debug -o "$T/touchauth" "$HELPER_BIN"
rm -f "$T/sensor"
python3 "$VSENSOR" "$T/sensor" "SCAN stranger" "SCAN hot" > /dev/null 2>&1 &
printf 'touchauth-request 1\nuser root\nservice hot\nfallback none\narg config=%s\nend\n' "$T/touchauth.conf" |
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$T/callgrind.out" \
        "$T/touchauth" pam-verify > "$T/verify.out" 2> "$T/valgrind.err"
wait $! || true
grep -q "^result success" "$T/verify.out" || {
    cat "$T/verify.out" "$T/valgrind.err"; echo "hot-symbols.sh: the profiled prompt did not match" >&2; exit 1; }

python3 - "$T/callgrind.out" "$T/touchauth" > "$ROOT/bench/hot-symbols.txt" <<'EOF'
import re
import sys

out, binary = sys.argv[1], sys.argv[2]
objects, functions, seen = {}, {}, []
current = {"ob": None, "cob": None}
names = set()
for line in open(out, encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
    if m:
        kind, i, name = m.groups()
        if name:
            objects[i] = name
        current[kind] = objects[i]
        if kind == "ob":
            current["cob"] = None
        continue
    m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
    if m:
        kind, i, name = m.groups()
        if name:
            functions[i] = name
        name = functions[i].split("'")[0]  # callgrind's 'N suffix: the same function, recursed
        # A cob= line names the object of the one cfn= after it; without one, it is ob's.
        obj = current["ob"] if kind == "fn" else (current["cob"] or current["ob"])
        if kind == "cfn":
            current["cob"] = None
        # Not an address (no symbol) or callgrind's own "(below main)".
        if obj == binary and re.fullmatch(r"[^\s()]+", name) and not name.startswith("0x") and name not in names:
            names.add(name)
            seen.append(name)
print("\n".join(seen))
EOF
echo "bench/hot-symbols.txt: $(wc -l < "$ROOT/bench/hot-symbols.txt") functions"
