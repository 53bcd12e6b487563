#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs touchauth the Debian way (docs/ARCHITECTURE.md#where-things-go). Root; builds first if needed.
#   scripts/install.sh [--prefix DIR] [--destdir DIR] [--no-build] [--list] [--setuid]
#
#   module        <multiarch PAM dir, where pam_unix.so is>/pam_touchauth.so
#   helper        PREFIX/libexec/touchauth/touchauth, and PREFIX/bin/touchauth -> it
#   config        /etc/security/touchauth.conf (commented defaults; an existing file is kept)
#   state         /var/lib/touchauth (root, 0700)
#   manual pages  PREFIX/share/man/man{1,5,8}
#   translations  PREFIX/share/locale/<lang>/LC_MESSAGES/touchauth.mo
#   completions   bash: PREFIX/share/bash-completion/completions/touchauth (with PREFIX /usr:
#                 pkg-config's completionsdir of bash-completion, where it looks); zsh:
#                 /usr/share/zsh/vendor-completions/_touchauth (PREFIX/share/zsh/site-functions)
#   polkit        /usr/lib/systemd/system/polkit-agent-helper@.service.d/touchauth.conf: the reader
#                 and our state inside polkit 127+'s socket-activated agent helper (a drop-in;
#                 systemd reloaded when it runs); harmless where polkit has no such unit
#   profiles      /usr/share/pam-configs/touchauth (pam-auth-update: the finger; not enabled)
#                 /usr/share/pam-configs/touchauth-unlock (records a succeeded password; Default:
#                 yes, so the next pam-auth-update run, e.g. --enable touchauth, enables it)
#
# PREFIX is /usr by default. The module, config, state and profile go where PAM, the helper and
# pam-auth-update look for them, whatever the prefix. DESTDIR (or --destdir) stages everything
# under a directory (debian/rules uses it); then root is not needed. /etc/pam.d is never
# changed: the command that enables the profile is printed at the end. Running it again is
# harmless. --list prints the files it installs (scripts/uninstall.sh removes those).
# --setuid installs the helper setuid root (4755) so screen lockers, which run PAM as the user,
# can use the fingerprint; off by default (README "Screen lockers and the setuid helper").
source "$(dirname "$0")/lib.sh"

PREFIX=/usr
DESTDIR=${DESTDIR:-}
BUILD=yes
LIST=no
HELPER_MODE=0755
while [ $# -gt 0 ]; do
    case $1 in
        --prefix) PREFIX=${2:?--prefix needs a directory}; shift ;;
        --prefix=*) PREFIX=${1#--prefix=} ;;
        --destdir) DESTDIR=${2:?--destdir needs a directory}; shift ;;
        --destdir=*) DESTDIR=${1#--destdir=} ;;
        --no-build) BUILD=no ;;
        --list) LIST=yes ;;
        --setuid) HELPER_MODE=4755 ;;
        -h|--help) sed -n '3,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case $PREFIX in /*) PREFIX=${PREFIX%/} ;; *) echo "install.sh: --prefix must be absolute" >&2; exit 2 ;; esac
[ -n "$PREFIX" ] || PREFIX=/usr
[ -z "$DESTDIR" ] || DESTDIR=$(mkdir -p "$DESTDIR" && cd "$DESTDIR" && pwd)

# The directory PAM loads modules from: where pam_unix.so is (through the /lib -> /usr/lib link
# of merged-/usr systems), else the multiarch triplet's.
pam_module_dir() {
    local unix
    unix=$(dpkg -L libpam-modules 2>/dev/null | grep '/security/pam_unix\.so$' | head -n 1 || true)
    [ -n "$unix" ] || unix=$(find /usr/lib /lib -name pam_unix.so 2>/dev/null | head -n 1 || true)
    if [ -n "$unix" ] && [ -e "$unix" ]; then
        dirname "$(readlink -f "$unix")"
    else
        echo "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)/security"
    fi
}

PAMDIR=$(pam_module_dir)
HELPER_DEST=$PREFIX/libexec/touchauth/touchauth
COMMAND=$PREFIX/bin/touchauth
MANDIR=$PREFIX/share/man
LOCALEDIR=$PREFIX/share/locale
CONF=/etc/security/touchauth.conf
STATE=/var/lib/touchauth
PROFILES="touchauth touchauth-unlock"
PROFILEDIR=/usr/share/pam-configs
POLKIT_DROPIN=/usr/lib/systemd/system/polkit-agent-helper@.service.d/touchauth.conf
MANPAGES="touchauth.1 touchauth.conf.5 pam_touchauth.8"
LANGS=$(cat "$ROOT/po/LINGUAS")
# Shell completions (completions/): where bash-completion and Debian's zsh look for them.
BASH_COMPLETION=$PREFIX/share/bash-completion/completions/touchauth
ZSH_COMPLETION=$PREFIX/share/zsh/site-functions/_touchauth
if [ "$PREFIX" = /usr ]; then
    dir=$(pkg-config --variable=completionsdir bash-completion 2>/dev/null || true)
    [ -z "$dir" ] || BASH_COMPLETION=$dir/touchauth
    ZSH_COMPLETION=/usr/share/zsh/vendor-completions/_touchauth
fi

# Everything this script puts on the system but the config and the state directory (those are
# the administrator's and the users' data: uninstall.sh keeps them unless --purge).
installed_files() {
    echo "$PAMDIR/pam_touchauth.so"
    echo "$HELPER_DEST"
    echo "$COMMAND"
    for page in $MANPAGES; do echo "$MANDIR/man${page##*.}/$page.gz"; done
    for lang in $LANGS; do echo "$LOCALEDIR/$lang/LC_MESSAGES/touchauth.mo"; done
    for profile in $PROFILES; do echo "$PROFILEDIR/$profile"; done
    echo "$POLKIT_DROPIN"
    echo "$BASH_COMPLETION"
    echo "$ZSH_COMPLETION"
}

if [ "$LIST" = yes ]; then
    installed_files
    exit 0
fi

if [ -z "$DESTDIR" ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (or stage with --destdir DIR)" >&2
    exit 1
fi
if [ -z "$DESTDIR" ] && dpkg -S "$HELPER_DEST" >/dev/null 2>&1; then
    echo "install.sh: $HELPER_DEST belongs to the package $(dpkg -S "$HELPER_DEST" | cut -d: -f1);" \
         "remove it first (apt-get remove touchauth)" >&2
    exit 1
fi

# Builds when an output is missing or was built for other paths (the helper path is compiled
# into the module, the locale directory into the helper).
needs_build() {
    local out
    for out in "$HELPER_BIN" "$MODULE_SO"; do [ -f "$out" ] || return 0; done
    for page in $MANPAGES; do [ "$ROOT/man/$page" -nt "$ROOT/man/$page.scd" ] || return 0; done
    for lang in $LANGS; do [ "$ROOT/po/$lang.mo" -nt "$ROOT/po/$lang.po" ] || return 0; done
    grep -qaF "$HELPER_DEST" "$MODULE_SO" || return 0
    grep -qaF "$LOCALEDIR" "$HELPER_BIN" || return 0
    return 1
}
if needs_build; then
    if [ "$BUILD" = no ]; then echo "install.sh: the build is missing or stale (drop --no-build)" >&2; exit 1; fi
    # make does not see a changed HELPER_PATH: drop the module so it is linked again.
    [ -f "$MODULE_SO" ] && ! grep -qaF "$HELPER_DEST" "$MODULE_SO" && rm -f "$MODULE_SO"
    if [ "$LOCALEDIR" = /usr/share/locale ]; then
        HELPER_PATH=$HELPER_DEST "$ROOT/scripts/build.sh"
    else
        HELPER_PATH=$HELPER_DEST LOCALEDIR=$LOCALEDIR "$ROOT/scripts/build.sh"
    fi
fi

OWNER=(-o root -g root)
[ "$(id -u)" -eq 0 ] || OWNER=()
put() {  # put MODE SOURCE DEST
    install -D "${OWNER[@]}" -m "$1" "$2" "$DESTDIR$3"
}

put 0644 "$MODULE_SO" "$PAMDIR/pam_touchauth.so"
put "$HELPER_MODE" "$HELPER_BIN" "$HELPER_DEST"
mkdir -p "$DESTDIR$(dirname "$COMMAND")"
ln -sfn "$(realpath -m --relative-to="$(dirname "$COMMAND")" "$HELPER_DEST")" "$DESTDIR$COMMAND"

TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
for page in $MANPAGES; do
    gzip -9nc "$ROOT/man/$page" > "$TMP"
    put 0644 "$TMP" "$MANDIR/man${page##*.}/$page.gz"
done
for lang in $LANGS; do
    put 0644 "$ROOT/po/$lang.mo" "$LOCALEDIR/$lang/LC_MESSAGES/touchauth.mo"
done

put 0644 "$ROOT/completions/touchauth.bash" "$BASH_COMPLETION"
put 0644 "$ROOT/completions/touchauth.zsh" "$ZSH_COMPLETION"

# The pam-auth-update profiles: the finger (Primary block, before pam_unix) and the recorder
# (Additional block: it records a password once the whole authentication succeeded).
for profile in $PROFILES; do
    put 0644 "$ROOT/examples/pam-configs/$profile" "$PROFILEDIR/$profile"
done

# polkit's socket-activated helper (polkit 127+): what our module needs inside its sandbox.
put 0644 "$ROOT/examples/systemd/polkit-agent-helper-touchauth.conf" "$POLKIT_DROPIN"

if [ -e "$DESTDIR$CONF" ]; then
    echo "kept $DESTDIR$CONF (existing; examples/touchauth.conf lists every key)"
else
    sed "s|^# helper = .*|# helper = $HELPER_DEST|" "$ROOT/examples/touchauth.conf" > "$TMP"
    put 0644 "$TMP" "$CONF"
fi
install -d "${OWNER[@]}" -m 0700 "$DESTDIR$STATE"
chmod 0700 "$DESTDIR$STATE"

echo "installed touchauth into ${DESTDIR:-/}:"
installed_files | sed "s|^|  $DESTDIR|"
echo "  $DESTDIR$CONF, $DESTDIR$STATE/"
[ -z "$DESTDIR" ] || exit 0
# systemd reads the polkit drop-in at its next reload.
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi

cat <<EOF

Nothing in /etc/pam.d was changed. Keep a root shell open while you try the next step, so a
mistake cannot lock you out. Enroll a finger first:

    touchauth enroll --user $(logname 2>/dev/null || echo USER) --finger right-index-finger

Then either turn it on for every service (sudo, su, login, polkit: common-auth):

    pam-auth-update --enable touchauth        # undo: pam-auth-update --disable touchauth

(that also enables touchauth-unlock: the line after pam_unix that lets a succeeded password
lift a fingerprint lockout; it stays after --disable touchauth, harmless without the
finger), or for sudo only, put these lines into /etc/pam.d/sudo (examples/pam.d/ has ready
files):

    auth       [success=done abort=die default=ignore]   pam_touchauth.so [reason=authenticate to run a command as root]
    @include common-auth
    auth       optional   pam_touchauth.so authsucc     # records a password that succeeded
EOF
if grep -qs '^[^#]*pam_fprintd' /etc/pam.d/common-auth; then
    cat <<EOF

libpam-fprintd's profile is on (pam_fprintd.so in /etc/pam.d/common-auth). Use one fingerprint
module, not both: 'pam-auth-update --enable touchauth' turns it off by itself (the profiles
conflict). Your prints stay: touchauth reads the ones fprintd enrolled in /var/lib/fprint
('touchauth list').
EOF
fi
if grep -s pam_touchauth /etc/pam.d/common-auth | grep -qvw authsucc; then
    echo; echo "The profiles are already enabled; 'pam-auth-update --package' applies changed profiles."
fi
exit 0
