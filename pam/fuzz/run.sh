#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pam/fuzz/run.sh [SECONDS]: builds the shim's libFuzzer harnesses with ASan and UBSan (clang
# from the Swift toolchain, which ships libFuzzer and the sanitizer runtimes; else Debian's
# clang) and runs each for SECONDS (default $FUZZ_SECONDS or 30) on a copy of its seed corpus
# (pam/fuzz/corpus/<name>). A crash, leak or sanitizer report fails; the input is kept in
# pam/fuzz/crashes/. Prints "N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-${FUZZ_SECONDS:-30}}
CLANG=${CLANG:-$(ls /opt/swift/usr/bin/clang 2>/dev/null || command -v clang || ls /usr/libexec/swift/bin/clang 2>/dev/null)}
[ -n "$CLANG" ] || { echo "no clang"; echo "0 passed, 1 failed"; exit 1; }
work=$(mktemp -d /tmp/touchauth-fuzz.XXXXXX)
trap 'rm -rf "$work"; rmdir "$here/crashes" 2>/dev/null' EXIT
passed=0 failed=0
FLAGS=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -fno-omit-frame-pointer -I"$here/..")

build() {  # build NAME SOURCES... LIBS...
    local name=$1; shift
    "$CLANG" "${FLAGS[@]}" -o "$work/$name" "$@" 2> "$work/$name.build" || {
        cat "$work/$name.build"; return 1; }
}

fuzz() {  # fuzz NAME: runs it, counts the verdict
    local name=$1
    mkdir -p "$work/corpus-$name" "$here/crashes"
    cp "$here/corpus/$name/"* "$work/corpus-$name/"
    # close_fd_mask=3: the parser's own complaints (stderr) would drown the log; libFuzzer
    # and the sanitizers keep a duplicate of stderr for their reports.
    "$work/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -max_len=4096 \
        -close_fd_mask=3 -artifact_prefix="$here/crashes/$name-" -print_final_stats=1 \
        "$work/corpus-$name" > "$work/$name.log" 2>&1
    local rc=$?
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "ok   - fuzz_$name: ${runs:-?} executions in ${seconds} s, no crash ($(ls "$work/corpus-$name" | wc -l) inputs in the corpus)"
    else
        failed=$((failed + 1))
        echo "FAIL - fuzz_$name (exit $rc):"
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written|==[0-9]+==' "$work/$name.log" | head -20
    fi
}

if build fuzz_reply "$here/fuzz_reply.c" "$here/../protocol.c" &&
   build fuzz_config "$here/fuzz_config.c" "$here/../config.c" "$here/../config_parse.c" \
       "$here/../config_file.c" &&
   build fuzz_keyring "$here/fuzz_keyring.c" "$here/../keyring.c" "$here/../pamstack.c" "$here/../clients.c" \
       "$here/../config.c" "$here/../config_parse.c" "$here/../config_file.c" &&
   build fuzz_pamstack "$here/fuzz_pamstack.c" "$here/../pamstack.c"; then
    fuzz reply
    fuzz config
    fuzz keyring
    fuzz pamstack
else
    failed=$((failed + 1)); echo "FAIL - build"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
