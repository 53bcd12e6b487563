# SPDX-License-Identifier: Apache-2.0
# Shared by the scripts: where things are, and installing what is missing from Debian.
# shellcheck shell=bash
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SWIFT_GIVEN=${SWIFT:-}
HELPER_BIN="$ROOT/.build/release/touchauth"
MODULE_SO="$ROOT/pam/pam_touchauth.so"

# The release's package names. Debian 13 renamed libraries for 64-bit time_t (the "t64"
# names: libcurl4t64, libglib2.0-0t64); 12 has the old ones. g++ brings the libstdc++ and libgcc
# of the release's default gcc (12 on Debian 12, 14 on 13), which the static link of the helper
# needs (scripts/build.sh), so no name here carries a gcc version.
DEBIAN_CODENAME=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
case $DEBIAN_CODENAME in
    bullseye | bookworm) LIBCURL=libcurl4 ;;
    *) LIBCURL=libcurl4t64 ;;
esac
BUILD_PACKAGES="libfprint-2-dev libglib2.0-dev libpam0g-dev libsystemd-dev pkgconf make gcc g++ scdoc gettext"
# A toolchain that is not Debian's (swift.org's tarball, at /opt/swift or $SWIFT) needs these:
# the libraries swift-driver, swift-build and lld load, and what its links (also
# --static-swift-stdlib) need. Measured in a `mmdebstrap --variant=apt bookworm` root
# (scripts/fresh-root.sh): swift build, swift test and the Swift fuzzers need no more (libedit2,
# libpython3 are lldb's and the REPL's). Debian's swiftlang (13 on) depends on its own.
SWIFT_PACKAGES="$LIBCURL libncurses6 libsqlite3-0 libxml2 binutils libc6-dev g++"
TEST_PACKAGES="clang-format pamtester libpam-wrapper libpam-modules python3 python3-gi gir1.2-fprint-2.0 valgrind sudo tmux socat"
# What the suites call that a minimal Debian 12 (Essential packages and apt) lacks: mount and
# umount (mount), pgrep and ps (procps), git (tests/spdx.sh asks git for the file list),
# build-essential (dpkg-buildpackage's implicit build dependency: install.sh builds the .deb).
TEST_PACKAGES+=" mount procps git build-essential"
# Essential on Debian 12, no longer on 13 (a minimal trixie root has neither): useradd and
# chpasswd (passwd: every suite's test users), /bin/login and /etc/pam.d/login (login).
TEST_PACKAGES+=" passwd login"

# ensure_packages PKG...: apt-get install the ones not installed yet (one apt-get update first).
# ensure_packages_no_start PACKAGE...: ensure_packages with a policy-rc.d that exits 101 while it
# runs (only if the machine has none; removed again at once), so no package's postinst starts a
# service on the machine (sshd, polkitd, dbus, a display manager).
ensure_packages_no_start() {
    local made="" rc=0
    if [ ! -e /usr/sbin/policy-rc.d ] && [ "$(id -u)" -eq 0 ]; then
        printf '#!/bin/sh\n# touchauth tests: no service starts while they install\nexit 101\n' \
            > /usr/sbin/policy-rc.d && chmod 0755 /usr/sbin/policy-rc.d && made=1
    fi
    ( ensure_packages "$@" ) || rc=$?
    [ -n "$made" ] && rm -f /usr/sbin/policy-rc.d
    return $rc
}
ensure_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then echo "need root to install ${missing[*]}" >&2; return 1; fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The Swift toolchain: $SWIFT, else `swift` on PATH, else Debian's swiftlang where it is even
# without its /usr/bin/swift link (that link is a debconf question, and python3-swiftclient's
# `swift`, the OpenStack client, may hold the name), else swift.org's tarball at /opt/swift.
# Picked here without running anything (scripts that only read $SWIFT); ensure_swift makes
# sure it is a Swift toolchain, and installs one where the archive has it.
SWIFT_CANDIDATES="$(command -v swift || true) /usr/libexec/swift/bin/swift /opt/swift/usr/bin/swift"
if [ -z "${SWIFT:-}" ]; then
    for SWIFT in $SWIFT_CANDIDATES; do [ -x "$SWIFT" ] && break; done
fi
is_swift() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q 'Swift version'; }
# Debian's own toolchain (swiftlang) brings its libraries; any other gets SWIFT_PACKAGES.
is_debian_swift() { case $(readlink -f "$1") in /usr/libexec/swift/*) return 0 ;; *) return 1 ;; esac; }
swiftlang_candidate() { apt-cache policy swiftlang 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -vx '(none)'; }
# ensure_swift: makes $SWIFT a working toolchain (exported), or says in one line where to get
# one and fails. SWIFT=... given is taken or refused, never replaced. A toolchain from
# elsewhere first gets its libraries (a fresh machine cannot even run its `swift --version`
# without them). Where none is found and the release's archive has swiftlang (Debian 13 on),
# that is installed.
ensure_swift() {
    local c given=${SWIFT_GIVEN:-}
    for c in ${given:-$SWIFT_CANDIDATES}; do
        if [ -x "$c" ] && ! is_debian_swift "$c"; then ensure_packages $SWIFT_PACKAGES; fi
        if is_swift "$c"; then export SWIFT=$c; return 0; fi
    done
    if [ -z "$given" ]; then
        if [ -z "$(swiftlang_candidate)" ] && [ "$(id -u)" -eq 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || true
        fi
        if [ -n "$(swiftlang_candidate)" ]; then
            ensure_packages swiftlang
            if is_swift /usr/libexec/swift/bin/swift; then export SWIFT=/usr/libexec/swift/bin/swift; return 0; fi
        fi
    fi
    echo "no Swift toolchain${given:+ at SWIFT=$given}: on Debian 13 apt-get install swiftlang; on Debian 12 unpack swift.org's Debian 12 tarball (https://www.swift.org/install/linux/) at /opt/swift, or set SWIFT=/path/to/usr/bin/swift" >&2
    return 1
}
