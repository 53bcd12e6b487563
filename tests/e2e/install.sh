#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installing like a Debian citizen (issue 7): the message catalogs are complete; install.sh puts
# everything in place; `pam-auth-update --enable touchauth` wires the module into the REAL
# /etc/pam.d (no pam_wrapper) and pamtester on the real `login` service gets the fingerprint,
# the password after three wrong fingers, and Chinese prompts under zh_CN/zh_TW locales; the
# manual pages are found; uninstall.sh leaves no file behind and the password still works. Then
# the same with the .deb that package.sh builds with dpkg-buildpackage from debian/ (stripped,
# touchauth-dbgsym, lintian without errors or warnings, LICENSE and copyright, the maintainer
# scripts registering and removing the profiles, apt-get install, remove, purge).
# Root on a throwaway machine: it changes /etc/pam.d/common-* through pam-auth-update and puts
# them back afterwards whatever happens.
source "$(dirname "$0")/../../scripts/lib.sh"
ensure_packages $BUILD_PACKAGES pamtester python3 locales man-db lintian dpkg-dev debhelper binutils
source "$(dirname "$0")/lib.sh"

# glibc only translates in a locale that exists.
for loc in zh_CN zh_TW; do
    locale -a | grep -qix "$loc.utf8" || localedef -i "$loc" -f UTF-8 "$loc.UTF-8"
done

SERVICE=login   # a real Debian service file: @include common-auth, common-account
CONF=/etc/security/touchauth.conf
OURS=(/usr/libexec/touchauth /usr/bin/touchauth /usr/share/pam-configs/touchauth /usr/share/pam-configs/touchauth-unlock
      "$CONF" /var/lib/touchauth)

catalogs() {
    OUT=$(cd "$ROOT/po" && python3 extract.py > "$T/fresh.pot" && msgcmp --use-untranslated touchauth.pot "$T/fresh.pot" 2>&1)
    check "po/touchauth.pot has every string of Message.swift (else: po/update.sh)" test $? -eq 0
    for lang in $(cat "$ROOT/po/LINGUAS"); do
        OUT=$(msgcmp "$ROOT/po/$lang.po" "$ROOT/po/touchauth.pot" 2>&1)
        check "$lang.po translates every msgid of the .pot" test $? -eq 0
        OUT=$(msgattrib --only-fuzzy --no-obsolete "$ROOT/po/$lang.po")
        check "$lang.po has no fuzzy translation" test -z "$OUT"
        OUT=$(msgfmt --check -o /dev/null "$ROOT/po/$lang.po" 2>&1)
        check "$lang.po passes msgfmt --check (placeholders match)" test $? -eq 0
    done
}
case_ "catalogs: every message has a msgid and a translation" catalogs

shipped_config() {
    : > "$T/empty.conf"; chmod 0644 "$T/empty.conf"
    while IFS='=' read -r key value; do
        OUT="key $key"
        check "examples/touchauth.conf: '# $key = $value'" \
            grep -qxF "# $key =${value:+ $value}" "$ROOT/examples/touchauth.conf"
    done < <("$ROOT/.build/release/touchauth" config-dump --config "$T/empty.conf")
    # The option table is touchauth.conf(5)'s KEYS section: one `*key* (default)` line per key.
    MAN_CONF="$ROOT/man/touchauth.conf.5.scd"
    man_keys() { sed -n '/^# KEYS/,/^# /s/^\*\([a-z_]*\)\* (.*/\1/p' "$MAN_CONF"; }
    for key in $(man_keys); do
        OUT="touchauth.conf(5) key $key"
        check "touchauth.conf(5)'s option $key is in examples/touchauth.conf" grep -q "^# $key =" "$ROOT/examples/touchauth.conf"
    done
    # ...and that table is every key the helper knows, no more, no less (else the loop above checks
    # too little, or nothing).
    OUT=$(diff <(man_keys | sort) <("$ROOT/.build/release/touchauth" config-dump --config "$T/empty.conf" | sed 's/=.*//' | sort) 2>&1)
    check "touchauth.conf(5) documents exactly the keys of config-dump" test -z "$OUT"
}
case_ "the shipped config lists every key with its default" shipped_config

# What is on the machine, by name, outside the places that change by themselves
# and outside the checkout ($ROOT: CI clones somewhere else than /work, and
# package.sh writes dist/ there).
snapshot() {
    find / -xdev \( -path "$ROOT" -o -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp \
        -o -path /var/log -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
        -o -path /var/lib/systemd -o -path /var/backups -o -path /work -o -path /root -o -path /home \
        -o -path /var/spool -o -path /var/mail \) -prune -o -print | sort > "$1"
}
pam_md5() { md5sum /etc/pam.d/common-* | sed 's/ .*//' | tr '\n' ' '; }

for path in "${OURS[@]}"; do
    if [ -e "$path" ] || [ -L "$path" ]; then
        echo "FAIL - $path exists: this test needs a machine without touchauth installed"
        echo "0 passed, 1 failed"; exit 1
    fi
done

# Whatever happens: /etc/pam.d/common-* and pam-auth-update's records as they were, and nothing
# of ours left.
mkdir -p "$T/backup/pam.d" "$T/backup/varlibpam"
cp -a /etc/pam.d/common-* "$T/backup/pam.d/"
cp -a /var/lib/pam/. "$T/backup/varlibpam/"
# restore_machine: the machine as before the suite (a case that installs starts from it, so an
# earlier case, failed or skipped, leaves it nothing); true when none of ours is left.
restore_machine() {
    local path
    cp -a "$T/backup/pam.d/." /etc/pam.d/
    rm -rf /var/lib/pam && mkdir -p /var/lib/pam && cp -a "$T/backup/varlibpam/." /var/lib/pam/
    rm -f /etc/pam.d/touchauth-e2e-hand
    if dpkg-query -W -f='${Status}' touchauth 2>/dev/null | grep -q installed; then
        dpkg --purge touchauth >/dev/null 2>&1
    fi
    [ -e /usr/libexec/touchauth/touchauth ] && "$ROOT/scripts/uninstall.sh" --force >/dev/null 2>&1
    rm -rf /usr/libexec/touchauth "$CONF" /var/lib/touchauth
    for path in "${OURS[@]}"; do [ -e "$path" ] || [ -L "$path" ] && return 1; done
    return 0
}
restore() { restore_machine; rm -rf "$T"; }
trap restore EXIT
make_user "$TUSER" "$TPASS"   # before the snapshot: useradd leaves /etc/passwd- and friends
BEFORE_MD5=$(pam_md5)
snapshot "$T/before"
PAMDIR=$(dirname "$(readlink -f "$(dpkg -L libpam-modules | grep '/pam_unix\.so$' | head -n 1)")")
# What install.sh leaves (the cases after the install case start from it, whether or not that
# case ran), and what the pam-auth-update case leaves too: both profiles enabled.
installed() { [ -x /usr/libexec/touchauth/touchauth ] || "$ROOT/scripts/install.sh" > "$T/install.out" 2>&1; }
installed_enabled() { installed && pam-auth-update --enable touchauth touchauth-unlock; }
# The .deb package.sh builds (the .deb case builds it and checks how; the next case alone
# builds it here).
VERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
DEB="$ROOT/dist/touchauth_${VERSION}_$ARCH.deb"
DBGSYM="$ROOT/dist/touchauth-dbgsym_${VERSION}_$ARCH.deb"
CHANGES="$ROOT/dist/touchauth_${VERSION}_$ARCH.changes"
DEB_BUILT=""
deb_built() { [ -n "$DEB_BUILT" ] || { "$ROOT/scripts/package.sh" > "$T/package.out" 2>&1 && DEB_BUILT=1; }; }

# realpam LOCALE-ENV STDIN [vsensor commands...]: pamtester on the real /etc/pam.d/$SERVICE,
# as lib.sh's pam() runs it: no terminal of ours, a display (PAM_TTY ":0") so someone can answer.
realpam() {
    local envs=$1 input=$2; shift 2
    rm -f "$SOCK"
    local sender=""
    if [ $# -gt 0 ]; then python3 "$E2E/vsensor.py" "$SOCK" "$@" > "$T/vsensor.out" 2>&1 & sender=$!; fi
    printf '%s\n' "$input" | env -u LANGUAGE -u LC_ALL -u LC_MESSAGES $envs \
        setsid -w timeout 60 stdbuf -o0 pamtester -v -I tty=:0 "$SERVICE" "$TUSER" authenticate ${ACCT:-} > "$T/out" 2>&1
    RC=$?
    if [ -n "$sender" ]; then kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null; fi
    OUT=$(cat "$T/out")
}
# Point the installed system at the virtual sensor: the installed helper reads only this file.
test_config() {
    { echo "virtual_device = $SOCK"; echo "print_dir = $T/prints"
      echo "password_after_boot = no"; echo "password_max_age = 0"; echo "password_after_enroll_change = no"
    } > "$CONF"
    chmod 0644 "$CONF"
}
# The fingerprint, three wrong fingers, and the translations, through the installed system.
exercise() {  # exercise LABEL
    local label=$1
    rm -f "$SOCK"  # vsensor.py waits (bounded) until the enrolment listens on it
    OUT=$(touchauth enroll --user "$TUSER" --finger right-index-finger --replace 2>&1 &
          python3 "$E2E/vsensor.py" "$SOCK" "SCAN e2e-finger" "SCAN e2e-finger" \
              "SCAN e2e-finger" "SCAN e2e-finger" "SCAN e2e-finger" 2>&1; wait)
    check "$label: 'touchauth enroll' on PATH stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"

    ACCT=acct_mgmt realpam "LANG=C.UTF-8" "" "SCAN e2e-finger"
    check "$label: enrolled finger -> authenticated (real /etc/pam.d/$SERVICE)" succeeded
    check "$label: ...our prompt was shown" has "Place your finger on the fingerprint reader"
    check "$label: ...no password asked" no_password_prompt
    check "$label: ...and the account phase passes" has "account management done."

    realpam "LANG=C.UTF-8" "$TPASS" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "$label: wrong x3 -> 'try again' twice" test "$(count_of "Not recognized, try again")" -eq 2
    check "$label: wrong x3 -> the password prompt" grep -q "^Password: " "$T/out"
    check "$label: wrong x3 -> the right password authenticates" succeeded
    strikes() { touchauth status "$TUSER" 2>&1 | sed -n 's/^ *strikes: \([0-9]*\).*/\1/p'; }
    OUT=$(touchauth status "$TUSER" 2>&1)
    check "$label: ...and the password lifted the strikes (the authsucc line in common-auth)" test "$(strikes)" = 0
    realpam "LANG=C.UTF-8" "wrong-$TPASS" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "$label: wrong x3, wrong password -> not authenticated" test "$RC" -ne 0
    OUT=$(touchauth status "$TUSER" 2>&1)
    check "$label: ...and the failed password lifted nothing (3 strikes kept)" test "$(strikes)" = 3
    realpam "LANG=C.UTF-8" "$TPASS" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "$label: 2 more wrong -> locked, then the right password authenticates" succeeded
    OUT=$(touchauth status "$TUSER" 2>&1)
    check "$label: ...and lifted the lockout in the same transaction" grep -q "locked: no" <<<"$OUT"
    check "$label: ...strikes 0" test "$(strikes)" = 0

    realpam "LANG=zh_CN.UTF-8" "" "SCAN e2e-finger"
    check "$label: LANG=zh_CN.UTF-8 -> Simplified Chinese prompt" has "请将手指放在指纹读取器上"
    check "$label: ...and the finger still works" succeeded
    realpam "LANG=zh_TW.UTF-8" "" "SCAN e2e-finger"
    check "$label: LANG=zh_TW.UTF-8 -> Traditional Chinese prompt" has "請將手指放在指紋讀取器上"
    # LANGUAGE over a locale that is not C (glibc ignores it in C, and from 2.41, Debian 13, in
    # C.UTF-8 too; the prompt keeps glibc's rule, as the asking program's messages do).
    realpam "LANG=zh_CN.UTF-8 LANGUAGE=zh_TW" "" "SCAN e2e-finger"
    check "$label: LANG=zh_CN.UTF-8 LANGUAGE=zh_TW -> Traditional Chinese prompt" has "請將手指放在指紋讀取器上"
    realpam "LANG=zh_CN.UTF-8" "$TPASS" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    check "$label: zh_CN wrong finger -> '无法识别，请再试一次'" test "$(count_of "无法识别，请再试一次")" -eq 2
    realpam "LANG=C.UTF-8" "" "SCAN e2e-finger"
    check "$label: (control) LANG=C.UTF-8 -> English" has "Place your finger on the fingerprint reader"
    # Locked, the module refuses by itself (pam/lockout.c), in the user's language too.
    realpam "LANG=C.UTF-8" "wrong-$TPASS" "SCAN stranger" "SCAN stranger" "SCAN stranger"
    realpam "LANG=C.UTF-8" "wrong-$TPASS" "SCAN stranger" "SCAN stranger"
    check "$label: five wrong in a row -> locked, and marked for the module" test -f "/var/lib/touchauth/$(id -u "$TUSER").locked"
    realpam "LANG=zh_CN.UTF-8" "$TPASS"
    check "$label: locked, LANG=zh_CN.UTF-8 -> the module's lockout line in Simplified Chinese" has "尝试次数过多。请输入密码以重新启用指纹。"
    check "$label: ...then the password authenticates" succeeded
    check "$label: ...and lifts the lockout (the marker is gone)" test ! -e "/var/lib/touchauth/$(id -u "$TUSER").locked"

    for page in "touchauth" "8 pam_touchauth" "5 touchauth.conf"; do
        OUT=$(man -w $page 2>&1)
        check "$label: man -w $page -> /usr/share/man" grep -q '^/usr/share/man/man./' <<<"$OUT"
        OUT=$(MANWIDTH=80 man -P cat $page 2>&1 | col -b)
        check "$label: man $page renders" grep -q "^NAME" <<<"$OUT"
    done
}

install_script() {
    check "(setup) a machine without touchauth (restore_machine)" restore_machine
    OUT=$("$ROOT/scripts/install.sh" 2>&1)
    check "install.sh succeeds" test $? -eq 0
    check "install.sh prints the command that enables it" has "pam-auth-update --enable touchauth"
    check "install.sh prints the sudo line" has "pam_touchauth.so [reason="
    check "install.sh did not change /etc/pam.d/common-*" test "$(pam_md5)" = "$BEFORE_MD5"
    OUT=$(stat -c '%a %U %n' "$PAMDIR/pam_touchauth.so" /usr/libexec/touchauth/touchauth /var/lib/touchauth "$CONF" 2>&1)
    check "module in $PAMDIR, 644 root" has "644 root $PAMDIR/pam_touchauth.so"
    check "helper 755 root" has "755 root /usr/libexec/touchauth/touchauth"
    check "state dir 700 root" has "700 root /var/lib/touchauth"
    check "config 644 root" has "644 root $CONF"
    OUT=$(touchauth --help 2>&1)
    check "'touchauth' is a command on PATH" has "touchauth enroll"
    OUT=$(cat "$CONF")
    check "the config is the commented defaults" has "# max_tries = 3"
    check "...with nothing set" test -z "$(grep -v '^#' "$CONF" | grep -v '^$')"
    OUT=$(cat /usr/share/pam-configs/touchauth)
    check "profile: auth before pam_unix, pam-auth-update syntax" has "[success=end abort=die default=ignore]	pam_touchauth.so"
    check "profile: no Account section (the account phase clears nothing)" lacks "Account"
    OUT=$(cat /usr/share/pam-configs/touchauth-unlock 2>&1)
    check "profile touchauth-unlock: the Additional block (after a primary module succeeded)" grep -qx "Auth-Type: Additional" <<<"$OUT"
    check "profile touchauth-unlock: optional pam_touchauth.so authsucc" has "	optional	pam_touchauth.so authsucc"
    check "profile touchauth-unlock: Default: yes" grep -qx "Default: yes" <<<"$OUT"
    for lang in zh_CN zh_TW; do
        check "catalog /usr/share/locale/$lang/LC_MESSAGES/touchauth.mo" test -f "/usr/share/locale/$lang/LC_MESSAGES/touchauth.mo"
    done
    echo "# custom" >> "$CONF"
    snapshot "$T/installed"
    OUT=$("$ROOT/scripts/install.sh" 2>&1)
    check "install.sh again succeeds (idempotent)" test $? -eq 0
    check "...keeps the existing config" grep -qx "# custom" "$CONF"
    snapshot "$T/installed-again"
    OUT=$(diff "$T/installed" "$T/installed-again")
    check "...and installs the same files" test -z "$OUT"
}
case_ "scripts/install.sh" install_script

pam_auth_update() {
    check "(setup) installed by install.sh" installed
    OUT=$(pam-auth-update --enable touchauth 2>&1)
    check "pam-auth-update --enable touchauth succeeds" test $? -eq 0
    OUT=$(cat /etc/pam.d/common-auth)
    check "common-auth: touchauth jumps past pam_unix on success" grep -Eq '^auth[[:space:]]+\[success=2 abort=die default=ignore\][[:space:]]+pam_touchauth\.so' <<<"$OUT"
    line_of() { grep -nE "$1" <<<"$OUT" | head -n 1 | cut -d: -f1; }
    check "common-auth: touchauth comes before pam_unix" \
        test "$(line_of 'pam_touchauth\.so *$')" -lt "$(line_of pam_unix)"
    # The same command enables touchauth-unlock (Default: yes, not seen before): its line in the
    # Additional block, after pam_deny and pam_permit, reached only when a primary module succeeded.
    check "common-auth: 'auth optional pam_touchauth.so authsucc'" \
        grep -Eq '^auth[[:space:]]+optional[[:space:]]+pam_touchauth\.so authsucc' <<<"$OUT"
    check "common-auth: the authsucc line after pam_unix, pam_deny and pam_permit" \
        test "$(line_of 'pam_touchauth\.so authsucc')" -gt "$(line_of pam_permit)" -a \
             "$(line_of pam_permit)" -gt "$(line_of pam_deny)" -a "$(line_of pam_deny)" -gt "$(line_of pam_unix)"
    # doctor reads the services through their includes: the lines are in common-*, the users are
    # sudo, su, login...; the fragments alone are not judged (a service with only common-account,
    # like cron, is a unit test: this VM has no cron file).
    OUT=$(touchauth doctor 2>&1)
    check "doctor: sudo uses it through common-*, in a sensible order, a succeeded password recorded" \
        has "OK   pam: /etc/pam.d/sudo: touchauth before the password (pam_unix), authsucc after it: a succeeded password lifts a lockout"
    check "doctor: login too" \
        has "OK   pam: /etc/pam.d/login: touchauth before the password (pam_unix), authsucc after it: a succeeded password lifts a lockout"
    check "doctor: no warning about the common-* fragments themselves" lacks "pam: /etc/pam.d/common-"
    if [ -e /run/systemd/seats/seat0 ]; then
        check "doctor: which presence signals (logind running)" has "OK   presence: logind: running, sessions are checked"
    else
        check "doctor: which presence signals (no logind here)" has "OK   presence: logind: not running: a terminal does not count (terminal_without_logind = no)"
    fi
    OUT=$(pam-auth-update --disable touchauth 2>&1; cat /etc/pam.d/common-auth)
    check "pam-auth-update --disable touchauth (the README's undo) takes the finger out" \
        test -z "$(grep pam_touchauth <<<"$OUT" | grep -vw authsucc)"
    check "...and leaves the authsucc line (harmless alone)" has "pam_touchauth.so authsucc"
    OUT=$(pam-auth-update --disable touchauth-unlock 2>&1)
    check "pam-auth-update --disable touchauth-unlock too restores common-*" test "$(pam_md5)" = "$BEFORE_MD5"
    # touchauth-unlock is now seen and off: --enable names both.
    pam-auth-update --enable touchauth touchauth-unlock
    test_config
    exercise "installed"
}
case_ "pam-auth-update --enable touchauth, then the real /etc/pam.d" pam_auth_update

uninstall_script() {
    check "(setup) installed by install.sh, both profiles enabled" installed_enabled
    printf 'auth required pam_touchauth.so\n' > /etc/pam.d/touchauth-e2e-hand
    OUT=$("$ROOT/scripts/uninstall.sh" 2>&1)
    check "uninstall.sh refuses while a hand-edited service names the module" test $? -ne 0
    check "...naming the file" has "/etc/pam.d/touchauth-e2e-hand"
    check "...and leaves the module in place" test -f "$PAMDIR/pam_touchauth.so"
    rm -f /etc/pam.d/touchauth-e2e-hand
    OUT=$("$ROOT/scripts/uninstall.sh" 2>&1)
    check "uninstall.sh succeeds" test $? -eq 0
    check "uninstall.sh ran pam-auth-update --remove first, for both profiles" has "pam-auth-update --package --remove touchauth touchauth-unlock"
    check "common-* are as before the test" test "$(pam_md5)" = "$BEFORE_MD5"
    check "the config is kept without --purge" test -f "$CONF"
    snapshot "$T/after"
    OUT=$(diff "$T/before" "$T/after" | grep '^[<>]' | grep -v -e "^> $CONF\$" -e '^> /var/lib/touchauth')
    check "without --purge only the config and the state remain" test -z "$OUT"
    OUT=$("$ROOT/scripts/uninstall.sh" --purge 2>&1)
    check "uninstall.sh --purge succeeds" test $? -eq 0
    # Whichever this machine is: with fprintd installed the prints are its too and stay; without it
    # --purge removes them.
    if dpkg-query -W -f='${Status}' fprintd 2>/dev/null | grep -q "install ok installed"; then
        check "--purge with fprintd installed keeps its prints (/var/lib/fprint)" \
            eval 'has "kept /var/lib/fprint" && test -d /var/lib/fprint'
    else
        check "--purge without fprintd removes the prints (/var/lib/fprint gone)" \
            eval 'lacks "kept /var/lib/fprint" && test ! -e /var/lib/fprint'
    fi
    snapshot "$T/after"
    OUT=$(diff "$T/before" "$T/after")
    check "after --purge no file of ours is left (find / before and after)" test -z "$OUT"
    realpam "LANG=C.UTF-8" "$TPASS"
    check "after uninstall the password authenticates ($SERVICE)" succeeded
    check "...with no fingerprint prompt" lacks "fingerprint"
}
case_ "uninstall.sh" uninstall_script

the_deb() {
    check "(setup) a machine without touchauth (restore_machine)" restore_machine
    OUT=$(cat "$ROOT/LICENSE" 2>&1)
    check "LICENSE is the Apache-2.0 text Debian ships (/usr/share/common-licenses/Apache-2.0)" \
        cmp -s "$ROOT/LICENSE" /usr/share/common-licenses/Apache-2.0
    # debian/control's Build-Depends are what build.sh installs, less what build-essential brings,
    # and the Swift toolchain: Debian's swiftlang unless the profile says it comes from elsewhere.
    BUILD_DEPENDS=$(sed -n '/^Build-Depends:/,/^[A-Z]/s/^ \([a-z0-9][a-z0-9.+-]*\)/\1/p' "$ROOT/debian/control")
    OUT=$(diff <(printf '%s\n' $BUILD_PACKAGES | grep -vx -e gcc -e g++ -e make | sort) \
        <(grep -v '<!pkg.touchauth.external-swift>' <<<"$BUILD_DEPENDS" | sed 's/[ ,(].*//' |
          grep -vx debhelper-compat | sort) 2>&1)
    check "debian/control's Build-Depends are scripts/lib.sh's BUILD_PACKAGES (less gcc, g++, make)" test -z "$OUT"
    OUT=$BUILD_DEPENDS
    check "debian/control's Build-Depends: swiftlang <!pkg.touchauth.external-swift> (the only profiled one)" \
        test "$(grep '<!' <<<"$BUILD_DEPENDS")" = "swiftlang <!pkg.touchauth.external-swift>,"
    local rc
    OUT=$("$ROOT/scripts/package.sh" 2>&1); rc=$?
    check "package.sh builds the .deb" test $rc -eq 0
    [ "$rc" != 0 ] || DEB_BUILT=1
    check "...by dpkg-buildpackage: dist/ has the .deb, touchauth-dbgsym, .buildinfo, .changes" \
        test -f "$DEB" -a -f "$DBGSYM" -a -f "${CHANGES%.changes}.buildinfo" -a -f "$CHANGES"
    check "...the version of debian/changelog" test "$(dpkg-deb -f "$DEB" Version)" = "$VERSION"
    OUT=$(dpkg-deb -f "$DEB" Depends)
    check "Depends: libfprint-2-2" has "libfprint-2-2"
    check "Depends: libpam0g" has "libpam0g"
    check "Depends: libsystemd0 (the module's sd-login)" has "libsystemd0"
    OUT=$(dpkg-deb -c "$DEB")
    check "every file in the .deb is root's (Rules-Requires-Root: no, dpkg-deb --root-owner-group)" \
        test -z "$(awk '$2 != "root/root"' <<<"$OUT")"
    # Stripped by dh_strip; the debug info in touchauth-dbgsym under the binaries' build ids.
    mkdir -p "$T/deb" "$T/dbgsym"
    dpkg-deb -x "$DEB" "$T/deb" && dpkg-deb -x "$DBGSYM" "$T/dbgsym"
    OUT=$(dpkg-deb -f "$DBGSYM")
    check "touchauth-dbgsym: dh_strip's debug-symbols package for touchauth (= $VERSION)" \
        test "$(grep -cx -e "Package: touchauth-dbgsym" -e "Depends: touchauth (= $VERSION)" \
                -e "Auto-Built-Package: debug-symbols" <<<"$OUT")" -eq 3
    echo "    helper: $(stat -c %s "$HELPER") bytes as built (.build/release), in the .deb:"
    for bin in usr/libexec/touchauth/touchauth "${PAMDIR#/}/pam_touchauth.so"; do
        OUT=$(readelf -S --wide "$T/deb/$bin" 2>&1)
        check "packaged $(basename "$bin"): stripped (no .symtab, no .debug_*)" \
            test -z "$(grep -E '\.symtab|\.debug_' <<<"$OUT")" -a -n "$(grep -F .dynsym <<<"$OUT")"
        id=$(readelf -n "$T/deb/$bin" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
        OUT=$(readelf -S --wide "$T/dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" 2>&1)
        check "touchauth-dbgsym: $(basename "$bin")'s debug info under its build id (${id:-none})" \
            test -n "$id" -a -n "$(grep -F .debug_info <<<"$OUT")"
        echo "    $bin: $(stat -c %s "$T/deb/$bin") bytes, its debug info" \
             "$(stat -c %s "$T/dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" 2>&1) (compressed)"
    done
    echo "    .deb $(stat -c %s "$DEB") bytes, touchauth-dbgsym $(stat -c %s "$DBGSYM")"
    # The .changes names the .deb, touchauth-dbgsym and the .buildinfo: lintian checks them all.
    OUT=$(lintian --display-info --pedantic "$CHANGES" 2>&1 | grep -v 'running with root privileges')
    echo "${OUT:-(nothing to report)}" | sed 's/^/    lintian: /'
    check "lintian: no errors" lacks "E: "
    check "lintian: no warnings" lacks "W: "
    OUT=$(DEBIAN_FRONTEND=noninteractive apt-get install -y "$DEB" 2>&1)
    check "apt-get install ./touchauth_*.deb succeeds" test $? -eq 0
    OUT=$(cat /usr/share/doc/touchauth/copyright 2>&1)
    check "/usr/share/doc/touchauth/copyright: DEP-5" has "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    check "...Files: * under Apache-2.0" test "$(sed -n '/^Files: \*$/,/^$/s/^License: //p' <<<"$OUT")" = Apache-2.0
    check "...pointing to /usr/share/common-licenses/Apache-2.0" has '"/usr/share/common-licenses/Apache-2.0"'
    OUT=$(zcat /usr/share/doc/touchauth/changelog.gz 2>&1)
    check "/usr/share/doc/touchauth/changelog.gz: debian/changelog ($VERSION)" has "touchauth ($VERSION) "
    OUT=$(dpkg-query -W -f='${Conffiles}' touchauth 2>&1)
    check "/etc/security/touchauth.conf is a conffile" grep -q "^ $CONF [0-9a-f]" <<<"$OUT"
    OUT=$(cat /var/lib/pam/seen 2>&1)
    check "postinst registered both profiles with pam-auth-update (/var/lib/pam/seen)" \
        test "$(grep -cx -e touchauth -e touchauth-unlock <<<"$OUT")" -eq 2
    OUT=$(cat /etc/pam.d/common-auth)
    check "the package does not enable the finger" test -z "$(grep pam_touchauth <<<"$OUT" | grep -vw authsucc)"
    check "...but records a succeeded password (touchauth-unlock, Default: yes)" has "pam_touchauth.so authsucc"
    OUT=$(pam-auth-update --enable touchauth 2>&1)
    check "pam-auth-update --enable touchauth (package)" grep -q pam_touchauth /etc/pam.d/common-auth
    # The same version again: the old prerm (upgrade) and the new postinst (configure) run.
    OUT=$(dpkg -i "$DEB" 2>&1)
    check "dpkg -i over itself (prerm upgrade, postinst configure) succeeds" test $? -eq 0
    OUT=$(cat /etc/pam.d/common-auth)
    check "...and keeps the finger the administrator enabled" \
        test -n "$(grep pam_touchauth <<<"$OUT" | grep -vw authsucc)" -a -n "$(grep -w authsucc <<<"$OUT")"
    OUT=$(stat -c '%a %U' /var/lib/touchauth 2>&1)
    check "postinst made /var/lib/touchauth 700 root" test "$OUT" = "700 root"
    test_config
    rm -rf "$T/prints"
    exercise "package"
    OUT=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y touchauth 2>&1)
    check "apt-get purge touchauth succeeds" test $? -eq 0
    check "purge took touchauth out of common-* (as before the test)" test "$(pam_md5)" = "$BEFORE_MD5"
    snapshot "$T/after"
    OUT=$(diff "$T/before" "$T/after")
    check "after purge no file of ours is left" test -z "$OUT"
    realpam "LANG=C.UTF-8" "$TPASS"
    check "after purge the password authenticates ($SERVICE)" succeeded
}
case_ "the .deb" the_deb

deb_remove() {
    check "(setup) the .deb built, a machine without touchauth" eval 'deb_built && restore_machine'
    OUT=$(DEBIAN_FRONTEND=noninteractive apt-get install -y "$DEB" 2>&1 && pam-auth-update --enable touchauth 2>&1)
    check "apt-get install again, and --enable touchauth" grep -q 'pam_touchauth\.so *$' /etc/pam.d/common-auth
    OUT=$(DEBIAN_FRONTEND=noninteractive apt-get remove -y touchauth 2>&1)
    check "apt-get remove touchauth succeeds" test $? -eq 0
    check "prerm took both profiles out of common-* (as before the test)" test "$(pam_md5)" = "$BEFORE_MD5"
    OUT=$(cat /var/lib/pam/seen 2>&1)
    check "...and out of pam-auth-update's records (/var/lib/pam/seen)" test "$(grep -cx -e touchauth -e touchauth-unlock <<<"$OUT")" -eq 0
    check "...the module and the helper are gone" test ! -e "$PAMDIR/pam_touchauth.so" -a ! -e /usr/libexec/touchauth/touchauth
    check "...the config (a conffile) and the state stay until purge" test -f "$CONF" -a -d /var/lib/touchauth
    realpam "LANG=C.UTF-8" "$TPASS"
    check "after remove the password authenticates ($SERVICE)" succeeded
    OUT=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y touchauth 2>&1)
    check "apt-get purge of the removed package succeeds" test $? -eq 0
    snapshot "$T/after"
    OUT=$(diff "$T/before" "$T/after")
    check "after remove and purge no file of ours is left" test -z "$OUT"
}
case_ "the .deb: apt-get remove (prerm), then purge" deb_remove

summary
