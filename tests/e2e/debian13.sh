#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Debian 13 (trixie), first-class (issue 21): the package built from Debian's archive alone and
# tested with Debian 13's own clients.
#   1. A clean trixie buildd root (mmdebstrap, cached as a tarball): apt-get build-dep ./ brings
#      Debian's swiftlang; dpkg-buildpackage -us -uc -b as a user with an unwritable HOME, as a
#      build daemon runs it; lintian (trixie's) has no E:/W:.
#   2. A clean trixie root (mmdebstrap --variant=apt, cached): apt-get install ./touchauth_*.deb,
#      then this script again inside it (--inside): real sudo 1.9.16 in tmux (the finger; three
#      wrong fingers, then the password; Enter; Ctrl-C), su with the finger and su with no
#      terminal (never arms the sensor), OpenSSH's sshd on loopback (never armed; a touch lets
#      no wrong password in), five wrong fingers lock (touchauth status, the next prompt says
#      why, the password lifts it), pam-auth-update --enable and --disable, and apt-get purge
#      (a working password login, nothing of ours left).
#   3. The screen lockers suite (clients_lockers.sh) in that root, with trixie's lockers.
#   4. The real-USB suite (usb.sh: umockdev, libfprint's elanmoc driver) in that root.
#   5. KDE Plasma 6 (clients_kde.sh) in that root: kscreenlocker_greet and Plasma's lock screen
#      under Xvfb, and KDE's polkit agent with the real polkitd (Plasma 6 is in Debian 13 only). Its ~380 packages come from the
#      kept downloads after the first run.
# The roots are entered as TESTING.md says: a private mount namespace, a /dev of their own (its
# own devpts), a tmpfs /run, a policy-rc.d that exits 101, the machine's name in /etc/hosts;
# nothing is installed on the machine but mmdebstrap. Root; works inside scripts/fresh-root.sh.
# The tarballs live in $TOUCHAUTH_FRESH_CACHE (default /var/cache/touchauth: trixie-buildd.tar,
# trixie-apt.tar, remade after 7 days) with the downloaded .debs (trixie-debs/).
# TOUCHAUTH_DEBIAN13_PARTS: the parts run in the installed root, of "clients lockers usb kde"
# (default: all four), e.g. "kde" to work on clients_kde.sh (the build and the install always run).
E2E=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ---- inside the trixie root, touchauth installed from the .deb ----
inside() {
    source "$E2E/lib.sh"
    for tool in tmux sudo su setpriv sshd ssh sshpass python3 pam-auth-update; do
        command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
    done
    source "$E2E/ttykit.sh"
    CONF=/etc/security/touchauth.conf   # the installed helper reads root's file only
    write_config "$CONF" password_after_boot=no password_max_age=0 password_after_enroll_change=no
    SU_USER=$NOPRINTS_USER
    make_user "$TUSER" "$TPASS"
    make_user "$SU_USER" "$TPASS"
    printf '%s\n' 'Defaults !lecture' "$TUSER ALL=(root) ALL" > /etc/sudoers.d/touchauth-e2e
    chmod 0440 /etc/sudoers.d/touchauth-e2e
    PROMPT="Place your finger on the fingerprint reader"
    SUDO_PW="password for $TUSER"
    LOCKED="Too many failed attempts. Enter your password to use your fingerprint again."
    NOLOGIN="This account is currently not available"   # su/ssh to a nologin user got in
    SUDO_RUN="sudo -k touch $W/u/ran"
    strikes() { touchauth status "$TUSER" 2>&1 | sed -n 's/^ *strikes: \([0-9]*\).*/\1/p'; }
    common_auth_finger() { grep -v authsucc /etc/pam.d/common-auth | grep -c pam_touchauth.so; }

    echo "# Debian 13: $(cat /etc/debian_version), $(sudo -V | head -n 1), $(ssh -V 2>&1)"
    OUT=$(DEBIAN_FRONTEND=noninteractive pam-auth-update --enable touchauth 2>&1; cat /etc/pam.d/common-auth)
    check "pam-auth-update --enable touchauth: our line in common-auth, before pam_unix" \
        test "$(grep -n -e 'pam_touchauth.so' -e 'pam_unix.so' /etc/pam.d/common-auth | grep -v authsucc | head -n 1 | grep -c pam_touchauth)" = 1
    enroll_out=$(touchauth enroll --user "$TUSER" --finger right-index-finger --replace 2>&1 &
        python3 "$E2E/vsensor.py" "$SOCK" "SCAN d13-finger" "SCAN d13-finger" "SCAN d13-finger" \
            "SCAN d13-finger" "SCAN d13-finger" 2>&1; wait)
    OUT=$enroll_out
    check "touchauth enroll (installed) stores a print" test -f "$T/prints/$TUSER/virtual_device/0/7"

    tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s t -n sudo -x 160 -y 50 "$(shell_as "$TUSER")"
    tm new-window -d -t t -n su "$(shell_as "$SU_USER")"

    echo "# sudo $(sudo -V | sed -n '1s/Sudo version //p') in tmux: the finger"
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN d13-finger" > /dev/null
    finish sudo
    check "sudo: our prompt" has "$PROMPT"
    check "sudo: the finger -> the command ran, exit status 0" test "$(ran && rc_is 0 && echo y)" = y
    check "sudo: ...no password asked" lacks "$SUDO_PW"

    echo "# sudo: three wrong fingers, then the password"
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN stranger" "SCAN stranger" "SCAN stranger" > /dev/null
    wait_for sudo "$SUDO_PW"
    tm send-keys -t t:sudo -l "$TPASS"
    tm send-keys -t t:sudo Enter
    finish sudo
    check "sudo: wrong x3 -> 'Not recognized, try again' twice" test "$(grep -cF "Not recognized, try again" <<<"$OUT")" -eq 2
    check "sudo: ...then sudo's password prompt" has "$SUDO_PW"
    check "sudo: ...the password -> the command ran, exit status 0" test "$(ran && rc_is 0 && echo y)" = y
    check "sudo: ...and the password lifted the strikes (touchauth-unlock)" test "$(strikes)" = 0

    echo "# sudo: Enter at the fingerprint prompt"
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    tm send-keys -t t:sudo Enter
    wait_for sudo "$SUDO_PW"
    check "sudo: Enter -> sudo's password prompt, the helper gone" no_helper_left sudo
    tm send-keys -t t:sudo -l "$TPASS"
    tm send-keys -t t:sudo Enter
    finish sudo
    check "sudo: Enter, then the password -> the command ran, exit status 0" test "$(ran && rc_is 0 && echo y)" = y

    echo "# sudo: Ctrl-C at the fingerprint prompt"
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    tm send-keys -t t:sudo C-c
    finish sudo
    check "sudo: Ctrl-C -> nothing ran, exit status 1" test "$(! ran && rc_is 1 && echo y)" = y
    check "sudo: Ctrl-C -> 'a password is required', no password prompt" \
        test "$(has "sudo: a password is required" && lacks "$SUDO_PW" && echo y)" = y
    check "sudo: Ctrl-C -> no helper left" no_helper_left sudo

    echo "# su (util-linux) with the finger"
    start su "su $TUSER -c true"
    wait_for su "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN d13-finger" > /dev/null
    finish su
    check "su: the finger -> in (the nologin shell speaks), no password asked" \
        test "$(has "$NOLOGIN" && lacks "Password:" && echo y)" = y

    echo "# su with no terminal"
    rm -f "$SOCK"
    OUT=$(printf '%s\n' "$TPASS" | setsid -w timeout 30 setpriv --reuid="$SU_USER" --regid="$SU_USER" --init-groups \
        env -i PATH=/usr/bin:/bin su "$TUSER" -c true 2>&1)
    check "su, no terminal: the password -> in" has "$NOLOGIN"
    check "su, no terminal: the sensor was never armed" sensor_never_armed
    check "su, no terminal: no fingerprint prompt" lacks "$PROMPT"

    echo "# OpenSSH's sshd on loopback"
    local port=2313 key="$T/ssh_host_ed25519_key"
    ssh-keygen -q -t ed25519 -N '' -f "$key"
    mkdir -p -m 0755 /run/sshd
    printf '%s\n' "Port $port" "ListenAddress 127.0.0.1" "HostKey $key" "UsePAM yes" \
        "PasswordAuthentication yes" "KbdInteractiveAuthentication yes" "PidFile $T/sshd.pid" > "$T/sshd_config"
    /usr/sbin/sshd -D -f "$T/sshd_config" -E "$T/sshd.log" &
    local sshd=$!
    for _ in $(seq 500); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.01; done
    ssh_as() {  # ssh_as PASSWORD METHOD: a login of $TUSER over loopback
        rm -f "$SOCK"
        OUT=$(setsid -w timeout 30 sshpass -p "$1" ssh -p "$port" -o StrictHostKeyChecking=no \
            -o UserKnownHostsFile=/dev/null -o PreferredAuthentications="$2" -o NumberOfPasswordPrompts=1 \
            "$TUSER@127.0.0.1" true 2>&1)
        RC=$?
    }
    ssh_as "$TPASS" password
    check "sshd: the password -> in (the nologin shell speaks)" has "$NOLOGIN"
    check "sshd: ...the sensor was never armed" sensor_never_armed
    ssh_as "$TPASS" keyboard-interactive
    check "sshd: keyboard-interactive, the password -> in" has "$NOLOGIN"
    check "sshd: ...never armed" sensor_never_armed
    # A touch queued for whoever listens: nobody must, and the wrong password stays wrong.
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN d13-finger" > /dev/null 2>&1 &
    local toucher=$!
    ssh_as "wrong-$TPASS" keyboard-interactive
    check "sshd: a touch and a wrong password -> refused" test "$(lacks "$NOLOGIN" && [ "$RC" -ne 0 ] && echo y)" = y
    check "sshd: ...never armed" sensor_never_armed
    kill "$toucher" 2>/dev/null; wait "$toucher" 2>/dev/null
    kill "$sshd" 2>/dev/null; wait "$sshd" 2>/dev/null

    echo "# five wrong fingers lock"
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN stranger" "SCAN stranger" "SCAN stranger" > /dev/null
    wait_for sudo "$SUDO_PW"
    tm send-keys -t t:sudo C-c
    finish sudo
    check "lockout: three wrong fingers, Ctrl-C at the password -> 3 strikes" test "$(strikes)" = 3
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN stranger" "SCAN stranger" > /dev/null
    wait_for sudo "$SUDO_PW"
    tm send-keys -t t:sudo C-c
    finish sudo
    check "lockout: two more wrong fingers -> the lockout message" has "$LOCKED"
    OUT=$(touchauth status "$TUSER" 2>&1)
    check "lockout: touchauth status says locked" grep -q "locked: yes" <<<"$OUT"
    start sudo "$SUDO_RUN"
    wait_for sudo "$SUDO_PW"
    OUT=$(screen sudo)
    check "lockout: the next prompt says why, and asks for the password" has "$LOCKED"
    check "lockout: ...the sensor not armed" sensor_never_armed
    tm send-keys -t t:sudo -l "$TPASS"
    tm send-keys -t t:sudo Enter
    finish sudo
    check "lockout: the password -> the command ran" test "$(ran && rc_is 0 && echo y)" = y
    OUT=$(touchauth status "$TUSER" 2>&1)
    check "lockout: ...and lifted the lockout" grep -q "locked: no" <<<"$OUT"
    start sudo "$SUDO_RUN"
    wait_for sudo "$PROMPT"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN d13-finger" > /dev/null
    finish sudo
    check "lockout: the finger works again" test "$(ran && rc_is 0 && echo y)" = y

    echo "# pam-auth-update --disable touchauth"
    OUT=$(DEBIAN_FRONTEND=noninteractive pam-auth-update --disable touchauth 2>&1)
    check "pam-auth-update --disable touchauth: our finger line is gone from common-auth" test "$(common_auth_finger)" = 0
    start sudo "$SUDO_RUN"
    wait_for sudo "$SUDO_PW"
    tm send-keys -t t:sudo -l "$TPASS"
    tm send-keys -t t:sudo Enter
    finish sudo
    check "...sudo asks for the password only, and it works" \
        test "$(lacks "$PROMPT" && ran && rc_is 0 && echo y)" = y
    DEBIAN_FRONTEND=noninteractive pam-auth-update --enable touchauth > /dev/null 2>&1  # purge it enabled

    echo "# apt-get purge touchauth"
    tm kill-server 2>/dev/null
    local f files=()
    while IFS= read -r f; do [ -d "$f" ] || files+=("$f"); done < <(dpkg -L touchauth)
    OUT=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y -q touchauth 2>&1)
    check "apt-get purge touchauth" test $? -eq 0
    OUT=$(ls -d "${files[@]}" /usr/libexec/touchauth /var/lib/touchauth 2>/dev/null
        grep -l touchauth /etc/pam.d/* /var/lib/pam/* 2>/dev/null)
    check "purge: none of the package's ${#files[@]} files left, nor its directories, /etc/pam.d lines, pam-auth-update records" \
        test -z "$OUT" -a "${#files[@]}" -gt 10
    tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s t -n sudo -x 160 -y 50 "$(shell_as "$TUSER")"
    start sudo "$SUDO_RUN"
    wait_for sudo "$SUDO_PW"
    tm send-keys -t t:sudo -l "$TPASS"
    tm send-keys -t t:sudo Enter
    finish sudo
    check "purge: sudo with the password still works" test "$(ran && rc_is 0 && echo y)" = y

    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

if [ "${1:-}" = --inside ]; then
    inside
    exit $?
fi

# ---- on the machine: the roots, the build, the install ----
source "$E2E/lib.sh"
ensure_packages mmdebstrap binutils dpkg-dev
CACHE=${TOUCHAUTH_FRESH_CACHE:-/var/cache/touchauth}
DEBS=$CACHE/trixie-debs
mkdir -p "$CACHE" "$DEBS"
SOURCES=("deb http://deb.debian.org/debian trixie main" "deb http://deb.debian.org/debian trixie-updates main"
         "deb http://deb.debian.org/debian-security trixie-security main")
WORK=$(mktemp -d /var/tmp/touchauth-debian13.XXXXXX)
trap 'rm -rf --one-file-system "$WORK" "$T"' EXIT
VERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
DEB=touchauth_${VERSION}_$ARCH.deb
phase() { echo "# $1 ($((SECONDS - PHASE_START)) s)"; PHASE_START=$SECONDS; }
PARTS=" ${TOUCHAUTH_DEBIAN13_PARTS:-clients lockers usb kde} "
part() { [[ $PARTS == *" $1 "* ]]; }
PHASE_START=$SECONDS

# cached_root NAME ARGS...: $CACHE/trixie-NAME.tar, made by mmdebstrap ARGS unless one younger
# than 7 days is there (one maker at a time).
cached_root() {
    local name=$1 tar=$CACHE/trixie-$1.tar; shift
    (
        flock 9
        if [ -s "$tar" ] && [ -z "$(find "$tar" -mtime +7)" ]; then exit 0; fi
        echo "making $tar (mmdebstrap $* trixie)"
        rm -f "$tar.new"
        mmdebstrap --quiet --format=tar "$@" trixie "$tar.new" "${SOURCES[@]}" && mv "$tar.new" "$tar"
    ) 9> "$CACHE/trixie.lock"
}
# unpack NAME DIR: a copy of the cached root, with the downloads of earlier runs linked in.
unpack() {
    mkdir -p "$2"
    tar -xpf "$CACHE/trixie-$1.tar" --numeric-owner -C "$2"
    find "$DEBS" -maxdepth 1 -name '*.deb' -exec cp -l -t "$2/var/cache/apt/archives" {} + 2>/dev/null
    cp -L /etc/resolv.conf "$2/etc/resolv.conf"
    echo "127.0.1.1 $(hostname)" >> "$2/etc/hosts"
    printf '#!/bin/sh\n# touchauth tests: no service starts\nexit 101\n' > "$2/usr/sbin/policy-rc.d"
    chmod 0755 "$2/usr/sbin/policy-rc.d"
}
keep_downloads() {
    find "$1/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -nl -t "$DEBS" {} + 2>/dev/null
}
# tree DIR: the checkout as git sees it (tracked and new files, not the build output).
tree() {
    mkdir -p "$1"
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done |
        tar --null --no-recursion -T - -cf -) | tar -xpf - -C "$1"
}
# enter DIR CMD...: CMD chrooted in DIR, in a private mount namespace: /proc, /sys, a private
# /dev (device nodes, a devpts instance of its own), a tmpfs /run. Nothing outlives CMD. The
# suite's sandbox (sandbox.sh) holds in there too: /sys with its VT file and cgroup2 (rbind), a
# /run with no logind, the environment given here, lid_dir in write_config's file.
enter() {
    unshare -m --propagation private bash -c '
        set -e
        r=$1; shift
        mount --bind "$r" "$r"
        mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
        mount --rbind /sys "$r/sys"
        mount -t tmpfs -o nosuid,mode=0755,size=16m dev "$r/dev"
        for n in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
            read -r name ma mi <<<"$n"; mknod -m 0666 "$r/dev/$name" c "$ma" "$mi"
        done
        mkdir -m 0755 "$r/dev/pts"
        mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$r/dev/pts"
        ln -s pts/ptmx "$r/dev/ptmx"
        mkdir -m 1777 "$r/dev/shm"
        ln -s /proc/self/fd "$r/dev/fd"
        mount -t tmpfs -o nosuid,nodev,mode=0755 run "$r/run"
        mkdir -m 1777 "$r/run/lock"
        mkdir -m 0755 "$r/run/systemd"  # empty: no logind (the lockers suite mounts its own over it)
        exec chroot "$r" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root USER=root LOGNAME=root TERM=xterm LANG=C.UTF-8 TOUCHAUTH_SANDBOX=1 "$@"
    ' enter "$@"
}

echo "# the trixie roots"
cached_root buildd --variant=buildd
cached_root apt --variant=apt --include=sudo,tmux,openssh-server,openssh-client,sshpass,libpam-modules,libpam-runtime,libfprint-2-2,util-linux,login,passwd,procps,python3
check "(setup) trixie roots made or cached: $(ls "$CACHE"/trixie-buildd.tar "$CACHE"/trixie-apt.tar 2>&1 | tr '\n' ' ')" \
    test -s "$CACHE/trixie-buildd.tar" -a -s "$CACHE/trixie-apt.tar"
phase "roots ready"

echo "# the package, built in a clean trixie buildd root"
B=$WORK/build
unpack buildd "$B"
tree "$B/build/touchauth-$VERSION"
OUT=$(enter "$B" sh -c '
    set -e
    cd /build
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq ./touchauth-'"$VERSION"' > build-dep.log 2>&1 || { tail -n 20 build-dep.log; exit 1; }
    /usr/libexec/swift/bin/swift --version 2>&1 | head -n 1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lintian > /dev/null 2>&1
    useradd -M -d /sbuild-nonexistent builder
    chown -R builder: /build
    su builder -s /bin/sh -c "cd touchauth-'"$VERSION"' && HOME=/sbuild-nonexistent dpkg-buildpackage -us -uc -b" > dpkg-buildpackage.log 2>&1 ||
        { tail -n 30 dpkg-buildpackage.log; exit 1; }
    lintian --display-info --pedantic touchauth_'"$VERSION"'_'"$ARCH"'.changes 2>&1 | grep -v "running with root" > lintian.out || true
' 2>&1)
BUILD_RC=$?
keep_downloads "$B"
echo "$OUT" | sed 's/^/    /'
check "apt-get build-dep ./ brings Debian's swiftlang (Swift 6.0)" has "Swift version 6.0"
check "dpkg-buildpackage -us -uc -b (a user, HOME unwritable) builds $DEB" test "$BUILD_RC" -eq 0 -a -s "$B/build/$DEB"
OUT=$(dpkg-deb -x "$B/build/$DEB" "$WORK/deb" 2>&1 && readelf -lW "$WORK/deb/usr/libexec/touchauth/touchauth" 2>&1 &&
      readelf -dW "$WORK/deb/usr/libexec/touchauth/touchauth" 2>&1)
check "the packaged helper has full RELRO (PT_GNU_RELRO and BIND_NOW: swiftlang's lld)" \
    test "$(has GNU_RELRO && has BIND_NOW && echo y)" = y
OUT=$(cat "$B/build/lintian.out" 2>&1)
echo "${OUT:-(nothing to report)}" | sed 's/^/    lintian: /'
check "lintian (trixie): no errors" test "$(grep -c '^E: ' <<<"$OUT")" = 0 -a -s "$B/build/lintian.out"
check "lintian (trixie): no warnings" test "$(grep -c '^W: ' <<<"$OUT")" = 0
if [ -s "$B/build/$DEB" ]; then
    echo "    $DEB: $(stat -c %s "$B/build/$DEB") bytes, Installed-Size $(dpkg-deb -f "$B/build/$DEB" Installed-Size) KiB"
    echo "    Depends: $(dpkg-deb -f "$B/build/$DEB" Depends)"
fi
phase "built"

echo "# installed in a clean trixie root"
R=$WORK/test
unpack apt "$R"
[ -s "$B/build/$DEB" ] && cp "$B/build/$DEB" "$R/root/"
rm -rf --one-file-system "$B"
tree "$R/build/touchauth"
OUT=$(enter "$R" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q /root/$DEB" 2>&1)
check "apt-get install ./$DEB in a clean trixie root" test $? -eq 0
keep_downloads "$R"
phase "installed"

# in_root NAME CMD...: CMD in the trixie root, its lines shown (its summary as "NAME: ..."), its
# counts added to this suite's; a check that it ran to its summary.
in_root() {
    local name=$1 line f
    shift
    enter "$R" "$@" 2>&1 | tee "$T/$name.out" | sed "s/^\([0-9]* passed, [0-9]* failed\)\$/$name: \1/"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$T/$name.out" | tail -n 1)
    OUT=$(tail -n 20 "$T/$name.out")
    check "(setup) the $name checks in the trixie root ran to their summary" test -n "$line"
    if [ -n "$line" ]; then
        PASSED=$((PASSED + ${line%% passed*}))
        f=${line#*, }; FAILED=$((FAILED + ${f%% failed*}))
    fi
}
# suite_in_root NAME SCRIPT: a suite of tests/e2e on the installed package's helper and module.
suite_in_root() {
    in_root "$1" env HELPER=/usr/libexec/touchauth/touchauth \
        MODULE="/usr/lib/$(uname -m)-linux-gnu/security/pam_touchauth.so" \
        bash "/build/touchauth/tests/e2e/$2"
    keep_downloads "$R"
    phase "$1 checked"
}
if part clients; then
    in_root inside bash /build/touchauth/tests/e2e/debian13.sh --inside
    phase "clients checked"
    # The checks above ended with apt-get purge: the package goes in again for the suites below.
    OUT=$(enter "$R" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q /root/$DEB" 2>&1)
    check "(setup) the package installed again for the lockers" test $? -eq 0
fi

# The screen lockers suite, with Debian 13's own vlock, i3lock, xsecurelock, sway and swaylock,
# on the installed package's helper and module (the suite makes its own setuid copy).
if part lockers; then
    echo "# the screen lockers in the trixie root (clients_lockers.sh)"
    suite_in_root lockers clients_lockers.sh
fi

# Real USB readers under umockdev (usb.sh) with trixie's libfprint 1.94.9, libgusb and umockdev,
# on the installed package's helper and module.
if part usb; then
    echo "# real USB readers under umockdev in the trixie root (usb.sh)"
    suite_in_root usb usb.sh
fi
if part kde; then
    echo "# KDE Plasma 6's lock screen and polkit agent in the trixie root (clients_kde.sh)"
    suite_in_root kde clients_kde.sh
fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
