#!/usr/bin/env bash
# Builds the release helper (Swift stdlib linked statically) and the PAM module.
#   scripts/build.sh            -> .build/release/touchauth, pam/pam_touchauth.so
# HELPER_PATH (default /usr/libexec/touchauth/touchauth) is compiled into the module, LOCALEDIR
# (default /usr/share/locale) into the helper. Also man/*.[158] (scdoc) and po/*.mo (msgfmt).
source "$(dirname "$0")/lib.sh"
ensure_packages $BUILD_PACKAGES
cd "$ROOT"
# (SwiftPM warns "prohibited flag(s): -pthread" for glib's pkg-config line: harmless.)
# --disable-local-rpath: no RUNPATH $ORIGIN in a binary that runs as root (it would search
# its own directory for libraries first; sudo's secure-exec ignores it, our own module's
# setuid(0) exec does not).
"$SWIFT" build -c release --static-swift-stdlib --disable-local-rpath ${LOCALEDIR:+-Xcc "-DTOUCHAUTH_LOCALEDIR=\"$LOCALEDIR\""}
make -s -C pam HELPER_PATH="${HELPER_PATH:-/usr/libexec/touchauth/touchauth}" all
make -s -C man all
make -s -C po all
echo "built: $HELPER_BIN $MODULE_SO"
