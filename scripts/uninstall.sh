#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Removes what scripts/install.sh installed. Root.
#   scripts/uninstall.sh [--prefix DIR] [--purge] [--force]
#
# First the pam-auth-update profiles (touchauth, touchauth-unlock) are taken out of /etc/pam.d/common-* (pam-auth-update
# --remove), while the module is still there; then the files go. The config
# (/etc/security/touchauth.conf), the state (/var/lib/touchauth) and the enrolled prints
# (/var/lib/fprint) stay, unless --purge; the prints stay anyway when fprintd is installed
# (they are its files too).
#
# A service file edited by hand (e.g. /etc/pam.d/sudo) that still names pam_touchauth.so stops
# the removal, since a `required` line for a missing module fails every login through that
# service: take the lines out first, or pass --force.
source "$(dirname "$0")/lib.sh"

PREFIX=/usr
PURGE=no
FORCE=no
while [ $# -gt 0 ]; do
    case $1 in
        --prefix) PREFIX=${2:?--prefix needs a directory}; shift ;;
        --prefix=*) PREFIX=${1#--prefix=} ;;
        --purge) PURGE=yes ;;
        --force) FORCE=yes ;;
        -h|--help) sed -n '3,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "uninstall.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [ "$(id -u)" -ne 0 ]; then echo "uninstall.sh: run it as root" >&2; exit 1; fi

PREFIX=${PREFIX%/}; [ -n "$PREFIX" ] || PREFIX=/usr
mapfile -t FILES < <("$ROOT/scripts/install.sh" --list --prefix "$PREFIX")
HELPER_DEST=$PREFIX/libexec/touchauth/touchauth
if dpkg -S "$HELPER_DEST" >/dev/null 2>&1; then
    echo "uninstall.sh: $HELPER_DEST belongs to a package: use apt-get remove (or purge) touchauth" >&2
    exit 1
fi

# Hand-edited services (pam-auth-update owns common-*, and takes its lines out below).
mapfile -t HAND < <(grep -lsw 'pam_touchauth\.so' /etc/pam.d/* | grep -v '^/etc/pam.d/common-' || true)
if [ ${#HAND[@]} -gt 0 ]; then
    echo "uninstall.sh: these PAM services still use pam_touchauth.so:" >&2
    grep -Hnsw 'pam_touchauth\.so' "${HAND[@]}" | sed 's/^/    /' >&2
    if [ "$FORCE" = no ]; then
        echo "remove those lines first (or pass --force): nothing was changed." >&2
        exit 1
    fi
    echo "(--force: going on; lines with default=ignore or optional fall through to the next module)" >&2
fi

if [ -e /usr/share/pam-configs/touchauth ] || [ -e /usr/share/pam-configs/touchauth-unlock ] ||
   grep -qsw 'pam_touchauth\.so' /etc/pam.d/common-*; then
    echo "pam-auth-update --package --remove touchauth touchauth-unlock"
    pam-auth-update --package --remove touchauth touchauth-unlock
fi
if grep -qsw 'pam_touchauth\.so' /etc/pam.d/common-*; then
    echo "uninstall.sh: /etc/pam.d/common-* still name pam_touchauth.so (edited by hand?):" >&2
    grep -nsw 'pam_touchauth\.so' /etc/pam.d/common-* | sed 's/^/    /' >&2
    [ "$FORCE" = yes ] || { echo "take those lines out (or pass --force): the files are kept." >&2; exit 1; }
fi

for file in "${FILES[@]}"; do
    if [ -e "$file" ] || [ -L "$file" ]; then rm -f "$file" && echo "removed $file"; fi
done
# Directories only we use; the shared ones (man, locale) only if we were alone in them.
rmdir --ignore-fail-on-non-empty "$(dirname "$HELPER_DEST")" 2>/dev/null || true
rmdir --ignore-fail-on-non-empty /usr/lib/systemd/system/polkit-agent-helper@.service.d 2>/dev/null || true
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
if [ "$PREFIX" != /usr ]; then
    for file in "${FILES[@]}"; do
        case $file in "$PREFIX"/*) rmdir -p --ignore-fail-on-non-empty "$(dirname "$file")" 2>/dev/null || true ;; esac
    done
fi

if [ "$PURGE" = yes ]; then
    rm -f /etc/security/touchauth.conf && echo "removed /etc/security/touchauth.conf"
    rm -rf /var/lib/touchauth && echo "removed /var/lib/touchauth"
    if dpkg-query -W -f='${Status}' fprintd 2>/dev/null | grep -q "install ok installed"; then
        echo "kept /var/lib/fprint (fprintd is installed and uses the same prints)"
    elif [ -d /var/lib/fprint ]; then
        rm -rf /var/lib/fprint && echo "removed /var/lib/fprint (the enrolled prints)"
    fi
else
    for kept in /etc/security/touchauth.conf /var/lib/touchauth /var/lib/fprint; do
        [ -e "$kept" ] && echo "kept $kept (--purge removes it)"
    done
fi
exit 0
