#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian package from debian/ (dh: debian/rules calls scripts/build.sh and
# scripts/install.sh --destdir) with `dpkg-buildpackage -us -uc -b`, on a copy of the tree:
# dpkg-buildpackage cleans the tree first and writes its results beside it. The results go to
# dist/:
#   touchauth_<version>_<arch>.deb          the package (helper and module stripped by dh_strip)
#   touchauth-dbgsym_<version>_<arch>.deb   their debug symbols (/usr/lib/debug/.build-id/): dh_strip's
#                                           automatic -dbgsym package, the "ddeb" (Debian's
#                                           debhelper names its file .deb, Ubuntu's .ddeb)
#   touchauth_<version>_<arch>.buildinfo, .changes, .build (the build's log)
# The version is debian/changelog's. As root it installs the Build-Depends that are missing; the
# Swift toolchain is found as scripts/build.sh finds it (SWIFT=..., else swift on PATH, else
# Debian's swiftlang, else /opt/swift/usr/bin/swift; on Debian 13 swiftlang is installed when
# none is found); one that is not Debian's swiftlang is built with the profile
# pkg.touchauth.external-swift (debian/control).
#   scripts/package.sh
#   apt-get install ./dist/touchauth_*.deb ; apt-get purge touchauth
source "$(dirname "$0")/lib.sh"
# debian/control's Build-Depends are BUILD_PACKAGES (tests/e2e/install.sh checks they agree).
ensure_packages $BUILD_PACKAGES debhelper dpkg-dev build-essential
ensure_swift
# debian/control names Debian's swiftlang; a toolchain from elsewhere (Debian 12 has none in its
# archive) is the build profile pkg.touchauth.external-swift.
PROFILES=()
if ! is_debian_swift "$SWIFT"; then PROFILES=(-Ppkg.touchauth.external-swift); fi
cd "$ROOT"
dpkg-checkbuilddeps "${PROFILES[@]}"
VERSION=$(dpkg-parsechangelog -S Version)
ARCH=$(dpkg --print-architecture)
DIST="$ROOT/dist"
NAME="touchauth_${VERSION}_${ARCH}"

WORK=$(mktemp -d /tmp/touchauth-package.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SRC="$WORK/touchauth-$VERSION"
mkdir "$SRC"
# The tree as git sees it (tracked and new files, not the ignored build output), else all but
# .build and dist.
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done |
        tar --null -T - -cf - | tar -xf - -C "$SRC"
else
    tar --exclude=./.build --exclude=./dist -cf - . | tar -xf - -C "$SRC"
fi

mkdir -p "$DIST"
if ! (cd "$SRC" && dpkg-buildpackage -us -uc -b "${PROFILES[@]}") > "$WORK/$NAME.build" 2>&1; then
    tail -n 40 "$WORK/$NAME.build"
    cp "$WORK/$NAME.build" "$DIST/"
    echo "package.sh: dpkg-buildpackage failed (the log: dist/$NAME.build)" >&2
    exit 1
fi
for f in "$NAME.deb" "touchauth-dbgsym_${VERSION}_${ARCH}.deb" "$NAME.buildinfo" "$NAME.changes" "$NAME.build"; do
    mv -f "$WORK/$f" "$DIST/"
done
echo "built $DIST/$NAME.deb (touchauth-dbgsym, .buildinfo, .changes beside it)"
dpkg-deb --info "$DIST/$NAME.deb" | sed -n 's/^ \(Depends\|Version\|Installed-Size\):/  \1:/p'
