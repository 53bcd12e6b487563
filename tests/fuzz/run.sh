#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/run.sh [SECONDS]: the helper's decoders under libFuzzer with ASan: the config
# grammar (file and module arguments), the shim's request, the state file, and an entry of the
# registry of armed requests. Each target is
# tests/fuzz/FuzzCore.swift compiled with Sources/TouchAuthCore (and the C config parser under
# it, pam/config*.c) by `swiftc -sanitize=fuzzer,address`
# (the Swift toolchain ships libFuzzer) and run for SECONDS (default $FUZZ_SECONDS or 30) on a
# copy of tests/fuzz/corpus/<target>. A crash fails; the input is kept in tests/fuzz/crashes/.
# Prints "N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-${FUZZ_SECONDS:-30}}
SWIFTC=${SWIFTC:-$(ls /opt/swift/usr/bin/swiftc 2>/dev/null || command -v swiftc || ls /usr/libexec/swift/bin/swiftc)}
work=$(mktemp -d /tmp/touchauth-fuzz.XXXXXX)
trap 'rm -rf "$work"; rmdir "$here/crashes" 2>/dev/null' EXIT
passed=0 failed=0

# The core's Config and PamStack are views of the shim's C (Package.swift's CConfig: the same
# sources, its module map in pam/include), built here with the same sanitizers.
# The clang beside the compiler: /usr/bin/swiftc of Debian's swiftlang is a link into /usr/libexec/swift/bin.
CLANG=${CLANG:-$(dirname "$(readlink -f "$SWIFTC")")/clang}
config_objects=()
csources=(config config_parse config_file keyring pamstack clients)
for c in "${csources[@]}"; do
    "$CLANG" -c -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address "$root/pam/$c.c" \
        -o "$work/$c.o" 2>> "$work/cconfig.build" && config_objects+=("$work/$c.o")
done

for target in config request state armed; do
    flag=FUZZ_$(echo "$target" | tr a-z A-Z)
    if [ ${#config_objects[@]} -ne ${#csources[@]} ] ||
       ! "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -D "$flag" -module-name FuzzCore \
        -package-name touchauth -I "$root/pam/include" \
        "$root"/Sources/TouchAuthCore/*.swift "$here/FuzzCore.swift" "${config_objects[@]}" \
        -o "$work/fuzz_$target" > "$work/$target.build" 2>&1; then
        cat "$work/cconfig.build" 2>/dev/null
        failed=$((failed + 1)); echo "FAIL - build fuzz_$target:"; grep -v 'Cannot export local symbol' "$work/$target.build" | head -20
        continue
    fi
    mkdir -p "$work/corpus-$target" "$here/crashes"
    cp "$here/corpus/$target/"* "$work/corpus-$target/"
    "$work/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -artifact_prefix="$here/crashes/$target-" -print_final_stats=1 \
        "$work/corpus-$target" > "$work/$target.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "ok   - fuzz_$target (Swift): ${runs:-?} executions in ${seconds} s, no crash ($(ls "$work/corpus-$target" | wc -l) inputs in the corpus)"
    else
        failed=$((failed + 1))
        echo "FAIL - fuzz_$target (Swift, exit $rc):"
        grep -E 'Fatal error|ERROR|SUMMARY|Test unit written|==[0-9]+==' "$work/$target.log" | head -20
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
