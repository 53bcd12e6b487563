#!/usr/bin/env bash
# Builds dist/touchauth_<version>_<arch>.deb with dpkg-deb: the files of scripts/install.sh
# (staged with --destdir), binaries stripped, Depends computed by dpkg-shlibdeps, the config as
# a conffile, and maintainer scripts that register the pam-auth-update profiles (the finger is
# not enabled: `pam-auth-update --enable touchauth` does that; touchauth-unlock, the line that
# records a succeeded password, is Default: yes) and take them out before the module goes.
#   scripts/package.sh            VERSION=0.1.0 by default
#   apt-get install ./dist/touchauth_*.deb ; apt-get purge touchauth
source "$(dirname "$0")/lib.sh"
ensure_packages dpkg-dev binutils
VERSION=${VERSION:-0.1.0}
# The Maintainer field and the changelog's signature: MAINTAINER, else the last commit's author.
MAINTAINER=${MAINTAINER:-$(git -C "$ROOT" log -1 --format='%an <%ae>' 2>/dev/null || true)}
[ -n "$MAINTAINER" ] || { echo "package.sh: set MAINTAINER='Name <address>'" >&2; exit 1; }
DATE=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}
ARCH=$(dpkg --print-architecture)
OUT="$ROOT/dist/touchauth_${VERSION}_${ARCH}.deb"

WORK=$(mktemp -d /tmp/touchauth-package.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
STAGE="$WORK/root"

"$ROOT/scripts/build.sh" >/dev/null
"$ROOT/scripts/install.sh" --destdir "$STAGE" --no-build >/dev/null
PAMDIR=$(dirname "$("$ROOT/scripts/install.sh" --list | grep '/pam_touchauth\.so$')")
HELPER="$STAGE/usr/libexec/touchauth/touchauth"
MODULE="$STAGE$PAMDIR/pam_touchauth.so"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$HELPER" "$MODULE"

# Debian wants a copyright file and a changelog with every package.
DOC="$STAGE/usr/share/doc/touchauth"
install -d -m 0755 "$DOC"
cat > "$DOC/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: touchauth
Comment: Touch ID for Linux: a PAM module (pam_touchauth.so) and its helper (touchauth).
 The project has not chosen its license yet; until it does, all rights are reserved by
 the authors.

Files: *
Copyright: $(date -u -d @"$DATE" +%Y) the touchauth authors
License: none
 No license has been granted yet.
EOF
{
    echo "touchauth ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Package built from $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo "a source tree")."
    echo
    echo " -- $MAINTAINER  $(date -R -d @"$DATE")"
} | gzip -9n > "$DOC/changelog.gz"
chmod 0644 "$DOC/copyright" "$DOC/changelog.gz"

# Depends: what the binaries link (libfprint-2-2, libpam0g, glib, libc ...) as dpkg-shlibdeps
# reads it from the shlibs/symbols files, plus pam-auth-update's package, plus libsystemd0: the
# module dlopens it for sd-login where logind runs (pam/presence.c), which shlibdeps cannot see.
mkdir -p "$WORK/src/debian"
printf 'Source: touchauth\n\nPackage: touchauth\nArchitecture: any\n' > "$WORK/src/debian/control"
SHLIBS=$(cd "$WORK/src" && dpkg-shlibdeps -O "-e$HELPER" "-e$MODULE" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
for lib in libfprint-2-2 libpam0g; do
    case ", $SHLIBS" in *", $lib"[\ ,]*|*", $lib") ;; *)
        echo "package.sh: dpkg-shlibdeps gave no $lib dependency: '$SHLIBS'" >&2; exit 1 ;;
    esac
done

mkdir -p "$STAGE/DEBIAN"
cat > "$STAGE/DEBIAN/control" <<EOF
Package: touchauth
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
Depends: libpam-runtime (>= 1.1.3-2~), $SHLIBS, libsystemd0 (>= 209)
Section: admin
Priority: optional
Description: Touch ID for Linux: fingerprint authentication with a password fallback
 A PAM module (pam_touchauth.so) and its helper (touchauth) that authenticate
 sudo, su, login, GDM and polkit with a fingerprint, the way Apple's Touch ID
 does: touch the sensor and you are in, a wrong finger gets "try again" up to
 three times, five in a row lock the fingerprint until the password is used,
 and the password is always the way back.
 .
 It reads and writes fprintd's print files through libfprint, so prints
 enrolled with fprintd or GNOME Settings work. The pam-auth-update profile is
 installed but not enabled: run "pam-auth-update --enable touchauth".
 A second profile, touchauth-unlock, enabled by default, lets a password that
 succeeded lift a fingerprint lockout.
EOF
echo /etc/security/touchauth.conf > "$STAGE/DEBIAN/conffiles"

cat > "$STAGE/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
	install -d -o root -g root -m 0700 /var/lib/touchauth
	# Registers the profiles: the finger stays off until "pam-auth-update --enable
	# touchauth" (Default: no); touchauth-unlock (an authsucc line after pam_unix,
	# harmless alone) is on unless the administrator turned it off (Default: yes).
	# Enabled ones are kept across upgrades.
	pam-auth-update --package
fi
exit 0
EOF
cat > "$STAGE/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
# Out of /etc/pam.d/common-* while the module is still on disk.
if [ "$1" = remove ] && [ "${DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT:-1}" = 1 ]; then
	pam-auth-update --package --remove touchauth touchauth-unlock
fi
exit 0
EOF
cat > "$STAGE/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = purge ]; then
	rm -rf /var/lib/touchauth
	# The prints are fprintd's files too: only without fprintd do they go with us.
	if [ ! -e /usr/libexec/fprintd ]; then
		rm -rf /var/lib/fprint
	fi
fi
exit 0
EOF
chmod 0755 "$STAGE/DEBIAN/postinst" "$STAGE/DEBIAN/prerm" "$STAGE/DEBIAN/postrm"
# dpkg creates the state directory in postinst (0700); the staged one is not shipped.
rmdir "$STAGE/var/lib/touchauth" "$STAGE/var/lib" "$STAGE/var"
(cd "$STAGE" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
chmod 0644 "$STAGE/DEBIAN/md5sums" "$STAGE/DEBIAN/control" "$STAGE/DEBIAN/conffiles"

mkdir -p "$ROOT/dist"
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$OUT" >/dev/null
echo "built $OUT"
dpkg-deb --info "$OUT" | sed -n 's/^ \(Depends\|Version\|Installed-Size\):/  \1:/p'
