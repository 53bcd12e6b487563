#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the release helper (Swift stdlib linked statically) and the PAM module.
#   scripts/build.sh            -> .build/release/touchauth, pam/pam_touchauth.so
# HELPER_PATH (default /usr/libexec/touchauth/touchauth) is compiled into the module, LOCALEDIR
# (default /usr/share/locale) into the helper. Also man/*.[158] (scdoc) and po/*.mo (msgfmt).
# Installs BUILD_PACKAGES, and the Swift toolchain's needs (ensure_swift, scripts/lib.sh: SWIFT=...,
# else swift on PATH, else Debian's swiftlang, else /opt/swift; on Debian 13 swiftlang is
# installed when none is found).
source "$(dirname "$0")/lib.sh"
ensure_packages $BUILD_PACKAGES
ensure_swift
cd "$ROOT"
# (SwiftPM warns "prohibited flag(s): -pthread" for glib's pkg-config line: harmless.)
# --disable-local-rpath: no RUNPATH $ORIGIN in a binary that runs as root (it would search
# its own directory for libraries first; sudo's secure-exec ignores it, our own module's
# setuid(0) exec does not).
# libstdc++ and libgcc (the Swift runtime's C++ support) are linked statically too: loading
# libstdc++.so and libgcc_s.so (whose constructor runs CPUID, a trap on a VM) cost every helper
# run 0.6-1.0 ms of its ~6 ms (scripts/bench.sh). The Swift static-stdlib link line asks for
# -lstdc++ itself, so a directory holding only libstdc++.a, searched first, makes it the
# archive. No library in libfprint's closure loads either one.
STATIC_CXX="$ROOT/.build/static-cxx"
CXX_ARCHIVE=$(gcc -print-file-name=libstdc++.a)
case $CXX_ARCHIVE in /*) ;; *) echo "build.sh: no libstdc++.a (apt-get install g++)" >&2; exit 1 ;; esac
mkdir -p "$STATIC_CXX"
ln -sfn "$CXX_ARCHIVE" "$STATIC_CXX/libstdc++.a"
# -z relro -z now (full RELRO, as the module has): every dynamic symbol bound at start-up, the
# GOT then read-only, for a helper that may be installed setuid. Debian 13's ld.bfd (2.44)
# writes no PT_GNU_RELRO for this link even when asked (the Swift metadata sections end up in
# the writable segment); lld does, and both toolchains link with it (below). Checked below. With the Swift stdlib static only libc,
# GLib and libfprint are bound (bench.sh's figures stay within noise; lintian's
# hardening-no-bindnow goes).
# A build ID (SHA-1, as gcc's link has by default): dh_strip files the debug info under it in
# the -dbgsym package. The lld link has none unless asked (the helper's debug info was missing
# from the Debian 13 -dbgsym); checked below.
# lld, with both toolchains (swift.org's ships it too): the functions a prompt runs come first
# in .text, in the order of bench/hot-symbols.txt (bench/hot-symbols.sh writes it), so a prompt
# maps a few 64 KB windows of code, not most of the binary; and -z pack-relative-relocs (DT_RELR,
# glibc 2.36) turns 477 KB of relative relocations into 4 KB. Peak RSS 12.9 -> 10.8 MB
# (bench/README.md, "Code layout"). A name the list has and the binary lacks is skipped.
LINKER=(-Xlinker --build-id=sha1 -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
if [ -f "$ROOT/bench/hot-symbols.txt" ]; then
    LINKER+=(-Xlinker "--symbol-ordering-file=$ROOT/bench/hot-symbols.txt" -Xlinker --no-warn-symbol-ordering)
fi
"$SWIFT" build -c release --static-swift-stdlib --disable-local-rpath "${LINKER[@]}" \
    -Xswiftc -L"$STATIC_CXX" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now \
    ${LOCALEDIR:+-Xcc "-DTOUCHAUTH_LOCALEDIR=\"$LOCALEDIR\""}
if ldd "$HELPER_BIN" | grep -Eq 'libstdc\+\+|libgcc_s'; then
    echo "build.sh: $HELPER_BIN still links libstdc++/libgcc_s dynamically" >&2; exit 1
fi
if ! readelf -lW "$HELPER_BIN" | grep -q GNU_RELRO || ! readelf -dW "$HELPER_BIN" | grep -q BIND_NOW; then
    echo "build.sh: $HELPER_BIN lacks full RELRO (PT_GNU_RELRO and BIND_NOW)" >&2; exit 1
fi
if ! readelf -nW "$HELPER_BIN" | grep -q 'Build ID'; then
    echo "build.sh: $HELPER_BIN has no build ID" >&2; exit 1
fi
make -s -C pam HELPER_PATH="${HELPER_PATH:-/usr/libexec/touchauth/touchauth}" ${LOCALEDIR:+LOCALEDIR="$LOCALEDIR"} all
make -s -C man all
make -s -C po all
echo "built: $HELPER_BIN $MODULE_SO"
