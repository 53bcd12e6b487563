# SPDX-License-Identifier: Apache-2.0
# Shared by the scripts: where things are, and installing what is missing from Debian.
# shellcheck shell=bash
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SWIFT=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
HELPER_BIN="$ROOT/.build/release/touchauth"
MODULE_SO="$ROOT/pam/pam_touchauth.so"

BUILD_PACKAGES="libfprint-2-dev libglib2.0-dev libpam0g-dev libsystemd-dev libstdc++-12-dev pkg-config make gcc scdoc gettext"
# The Swift toolchain's own needs (swift.org's tarball at /opt/swift, Debian 12): the libraries
# swift-driver, swift-build and lld load, and what its links (also --static-swift-stdlib) need.
# Measured in a `mmdebstrap --variant=apt bookworm` root (scripts/fresh-root.sh): swift build,
# swift test and the Swift fuzzers need no more (libedit2, libpython3 are lldb's and the REPL's).
SWIFT_PACKAGES="libcurl4 libncurses6 libsqlite3-0 libxml2 binutils libc6-dev libgcc-12-dev libstdc++-12-dev"
TEST_PACKAGES="clang-format pamtester libpam-wrapper libpam-modules python3 python3-gi gir1.2-fprint-2.0 valgrind sudo tmux socat"
# What the suites call that a minimal Debian 12 (Essential packages and apt) lacks: mount and
# umount (mount), pgrep and ps (procps), git (tests/spdx.sh asks git for the file list),
# build-essential (dpkg-buildpackage's implicit build dependency: install.sh builds the .deb).
TEST_PACKAGES+=" mount procps git build-essential"

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
