#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Debian forky (testing) with systemd as init (issue 47, parts 2 and 3): polkit 128's
# socket-activated agent helper and run0, for real. A forky root (mmdebstrap, cached) booted by
# `systemd-nspawn -b` (systemd 262 as PID 1, its journald, dbus, logind, polkitd 128 activated on
# demand, polkit-agent-helper.socket starting polkit-agent-helper@.service per connection, with
# its sandbox); this tree's module and helper installed there as scripts/install.sh puts them
# (with examples/systemd's drop-in), libfprint's virtual sensor, pkttyagent and run0 typed in a
# tmux pane of a logind session of the test user.
#
# What stands in: the session is made by `su -l` (pam_systemd, real logind) with XDG_SEAT=seat0
# in its environment, as a display manager passes it: a container has no virtual consoles, where
# a text login gets seat0 by itself. The virtual sensor's socket lives in /run/touchauth-e2e
# (root's config), made writable in the unit by a test drop-in of its own (zz-touchauth-e2e.conf):
# the shipped drop-in opens USB readers' nodes, which a container has none of. nspawn shares the
# machine's kernel: properties that need a network namespace (PrivateNetwork=) are skipped there
# with a warning (systemd says so), the rest of the sandbox holds (ProtectSystem=strict: the
# state directory is read-only without our drop-in, as the first case shows).
#
# Two things this machine needs to boot systemd 262 (tests/e2e/NOTES.md): the unified cgroup
# hierarchy in the container (SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1: this VM's hybrid layout makes
# systemd >= 258 exit at once, status 255, no message), and a tmpfs at /run/systemd/nspawn (this
# VM's /run is on disk, where nspawn refuses to clean up; the sandbox's /run/systemd tmpfs is it).
# forky's Release file expires a week after it is signed: mmdebstrap gets
# Acquire::Check-Valid-Until=false (a mirror snapshot older than that would fail otherwise).
#
# The root: $TOUCHAUTH_FRESH_CACHE (default /var/cache/touchauth)/forky-boot.tar, remade after
# 7 days. --private-network: the container's sshd and everything else listen on its own loopback.
source "$(dirname "$0")/lib.sh"
ensure_packages mmdebstrap systemd-container tmux || { echo "cannot install mmdebstrap"; echo "0 passed, 1 failed"; exit 1; }
CACHE=${TOUCHAUTH_FRESH_CACHE:-/var/cache/touchauth}
mkdir -p "$CACHE"
WORK=$(mktemp -d /var/tmp/touchauth-forky.XXXXXX)
R=$WORK/root
NSPAWN=""
PID1=""
stop_root() {
    [ -n "$NSPAWN" ] || return 0
    kill "$NSPAWN" 2>/dev/null   # nspawn halts the container on SIGTERM
    for _ in $(seq 100); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$NSPAWN" 2>/dev/null
    wait "$NSPAWN" 2>/dev/null
    NSPAWN=""
}
trap 'stop_root; rm -rf --one-file-system "$WORK" "$T"' EXIT
STARTED=$SECONDS
TU=${TOUCHAUTH_E2E_USER:-touchauth-test}
PW='correct horse 7'
VSOCK=/run/touchauth-e2e/vdev.sock     # inside the root
PROMPT="Place your finger on the fingerprint reader"
DROPIN=/usr/lib/systemd/system/polkit-agent-helper@.service.d/touchauth.conf
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)

# inroot CMD...: CMD inside the booted root (all its namespaces), as root.
inroot() { nsenter -t "$PID1" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
tm() { inroot tmux -L e2e "$@"; }
screen_of() { tm capture-pane -p -J -t "s:$1" -S -60 2>/dev/null; }
# wait_screen WINDOW TEXT [TENTHS]: until WINDOW shows TEXT (default 30 s).
wait_screen() {
    for _ in $(seq "${3:-300}"); do screen_of "$1" | grep -qF -- "$2" && return 0; sleep 0.1; done
    return 1
}
armed() { inroot test -S "$VSOCK"; }
touch_finger() { inroot python3 /usr/local/lib/touchauth-e2e/vsensor.py "$VSOCK" "SCAN $1" > /dev/null 2>&1; }
wait_armed() { for _ in $(seq 300); do armed && return 0; sleep 0.1; done; return 1; }
journal_since() { inroot journalctl --no-pager -o cat --since "@$1"; }
now() { inroot date +%s.%N; }

echo "# the forky root"
t0=$SECONDS
(
    flock 9
    tar=$CACHE/forky-boot.tar
    if [ -s "$tar" ] && [ -z "$(find "$tar" -mtime +7)" ]; then exit 0; fi
    echo "making $tar (mmdebstrap forky)"
    rm -f "$tar.new"
    mmdebstrap --quiet --format=tar --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
        --include=systemd,systemd-sysv,dbus,libpam-systemd,polkitd,pkexec,sudo,tmux,openssh-server,openssh-client,sshpass,libpam-modules,libpam-runtime,libfprint-2-2,util-linux,login,passwd,procps,python3 \
        forky "$tar.new" "deb http://deb.debian.org/debian forky main" && mv "$tar.new" "$tar"
) 9> "$CACHE/forky.lock"
mkdir -p "$R"
tar -xpf "$CACHE/forky-boot.tar" --numeric-owner -C "$R"
OUT=$(ls -l "$CACHE/forky-boot.tar" 2>&1)
check "(setup) forky root made or cached, unpacked ($((SECONDS - t0)) s)" test -x "$R/usr/lib/systemd/systemd"

# This tree's module and helper where scripts/install.sh puts them, its profiles, its drop-in.
install -D -m 0644 "$MODULE" "$R/usr/lib/$MULTIARCH/security/pam_touchauth.so"
install -D -m 0755 "$HELPER" "$R/usr/libexec/touchauth/touchauth"
ln -sfn ../libexec/touchauth/touchauth "$R/usr/bin/touchauth"
for p in touchauth touchauth-unlock; do install -D -m 0644 "$ROOT/examples/pam-configs/$p" "$R/usr/share/pam-configs/$p"; done
install -D -m 0644 "$ROOT/examples/systemd/polkit-agent-helper-touchauth.conf" "$R$DROPIN"
install -d -m 0700 "$R/var/lib/touchauth"
install -D -m 0755 "$E2E/vsensor.py" "$R/usr/local/lib/touchauth-e2e/vsensor.py"
install -D -m 0755 "$E2E/clients/polkit_tty.sh" "$R/usr/local/lib/touchauth-e2e/polkit_tty.sh"
# The test's own drop-in: the virtual sensor's directory (root's config names it).
install -D -m 0644 /dev/stdin "$R/etc/systemd/system/polkit-agent-helper@.service.d/zz-touchauth-e2e.conf" <<'EOF'
[Service]
ReadWritePaths=/run/touchauth-e2e
EOF
install -D -m 0644 /dev/stdin "$R/etc/tmpfiles.d/touchauth-e2e.conf" <<'EOF'
d /run/touchauth-e2e 0755 root root -
EOF
cat > "$R/etc/security/touchauth.conf" <<EOF
# written by tests/e2e/forky.sh
virtual_device = $VSOCK
debug = yes
password_after_boot = no
password_max_age = 0
password_after_enroll_change = no
timeout = 20
EOF
install -D -m 0644 /dev/stdin "$R/etc/polkit-1/rules.d/10-touchauth-e2e.rules" <<EOF
polkit.addRule(function(action, subject) {
    if (subject.user == "$TU" && (action.id == "org.freedesktop.policykit.exec" ||
        action.id == "org.freedesktop.systemd1.manage-units")) return polkit.Result.AUTH_SELF;
});
EOF
echo "127.0.1.1 $(hostname)" >> "$R/etc/hosts"
OUT=$(chroot "$R" sh -c "
    useradd -m -s /bin/bash $TU && echo '$TU:$PW' | chpasswd &&
    DEBIAN_FRONTEND=noninteractive pam-auth-update --enable touchauth &&
    systemctl mask ssh.service ssh.socket dev-hugepages.mount sys-fs-fuse-connections.mount" 2>&1)
check "(setup) the test user, pam-auth-update --enable touchauth in the root" test $? -eq 0

echo "# booting it: systemd-nspawn -b"
t0=$(date +%s.%N)
SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 systemd-nspawn --quiet --register=no --keep-unit --private-network \
    -D "$R" -b --console=pipe > "$T/boot.log" 2>&1 &
NSPAWN=$!
state=""
for _ in $(seq 600); do
    [ -n "$PID1" ] || PID1=$(pgrep -P "$NSPAWN" | head -n 1)
    [ -n "$PID1" ] && state=$(inroot systemctl is-system-running 2>/dev/null)
    [ "$state" = running ] || [ "$state" = degraded ] && break
    kill -0 "$NSPAWN" 2>/dev/null || break
    sleep 0.1
done
BOOT_S=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
OUT="state: $state; $(tail -n 20 "$T/boot.log"; inroot systemctl --failed --no-pager 2>&1)"
check "systemd 262 boots in the root: 'running' (${BOOT_S} s)" test "$state" = running
[ "$state" = running ] || [ "$state" = degraded ] || { echo "$PASSED passed, $FAILED failed"; exit 1; }

OUT=$(inroot sh -c "
    touchauth enroll --user $TU --finger right-index-finger --replace > /tmp/enroll.out 2>&1 & e=\$!
    for i in \$(seq 100); do [ -S $VSOCK ] && break; sleep 0.1; done
    python3 /usr/local/lib/touchauth-e2e/vsensor.py $VSOCK 'SCAN fk' 'SCAN fk' 'SCAN fk' 'SCAN fk' 'SCAN fk'
    wait \$e; cat /tmp/enroll.out" 2>&1)
check "(setup) touchauth enroll in the booted root" inroot test -f "/var/lib/fprint/$TU/virtual_device/0/7"

# The session: su -l in a tmux pane (its server a service of the root's systemd), XDG_SEAT=seat0.
inroot systemd-run --quiet --unit=touchauth-e2e-tmux tmux -L e2e -D -f /dev/null
for _ in $(seq 50); do inroot test -S /tmp/tmux-0/e2e && break; sleep 0.1; done
tm new-session -d -s s -n local -x 160 -y 50 "env XDG_SEAT=seat0 su -l $TU"
wait_screen local "$TU@" 100
SESSION=$(inroot loginctl list-sessions --no-legend | awk -v u="$TU" '$3 == u && $4 == "seat0" {print $1; exit}')
OUT=$(inroot loginctl show-session "$SESSION" 2>&1)
check "(setup) the user's logind session: local, active, tty, seat0" \
    test "$(grep -cxE 'Remote=no|Active=yes|Type=tty|Seat=seat0' <<< "$OUT")" = 4

case_unit() {
    OUT=$(ls -l "$R/usr/lib/polkit-1/polkit-agent-helper-1"; inroot dpkg-query -W polkitd systemd; \
          inroot systemctl cat polkit-agent-helper@x.service 2>&1)
    check "polkit 128: polkit-agent-helper-1 is not setuid (systemd-sysv installed)" \
        test ! -u "$R/usr/lib/polkit-1/polkit-agent-helper-1"
    check "polkit-agent-helper@.service: --socket-activated, PrivateDevices, ProtectSystem=strict, NoNewPrivileges, AF_UNIX" \
        test "$(grep -cxE 'ExecStart=.*--socket-activated|PrivateDevices=yes|ProtectSystem=strict|NoNewPrivileges=yes|RestrictAddressFamilies=AF_UNIX' <<< "$OUT")" = 5
    check "...and our drop-in is read with it" grep -q "^# $DROPIN" <<< "$OUT"
    OUT=$(inroot systemctl show -p RestrictAddressFamilies -p ReadWritePaths -p DeviceAllow polkit-agent-helper@x.service 2>&1)
    check "...which adds AF_NETLINK, /var/lib/touchauth, the USB nodes" \
        test "$(grep -c -e AF_NETLINK -e /var/lib/touchauth -e 'char-usb_device rw' <<< "$OUT")" = 3
}

# pkexec_local WINDOW: pkexec (through pkttyagent, clients/polkit_tty.sh) typed in the session.
start_in() { inroot rm -f "$VSOCK"; tm send-keys -t "s:$1" "clear; $2; echo rc=\$?" Enter; }
password_in() { tm send-keys -t "s:$1" -l "$PW"; tm send-keys -t "s:$1" Enter; }

case_no_dropin() {
    local since
    mv "$R$DROPIN" "$WORK/dropin.off" && inroot systemctl daemon-reload
    since=$(now)
    start_in local "bash /usr/local/lib/touchauth-e2e/polkit_tty.sh id -u"
    wait_screen local "Password:"
    OUT=$(screen_of local)
    check "no drop-in: pkexec asks for the password at once (pkttyagent's Password:)" has "Password:"
    check "...no fingerprint prompt, the sensor never armed" test "$(lacks "$PROMPT" && ! armed && echo y)" = y
    OUT=$(journal_since "$since")
    check "...the module says why: no drop-in (the state directory read-only)" \
        has "without touchauth's drop-in"
    password_in local
    wait_screen local "rc="
    OUT=$(screen_of local)
    check "...the password -> AUTHENTICATION COMPLETE, id -u says 0" \
        test "$(has "AUTHENTICATION COMPLETE" && grep -qx 0 <<< "$OUT" && echo y)" = y
    mv "$WORK/dropin.off" "$R$DROPIN" && inroot systemctl daemon-reload
}

case_pkexec_finger() {
    local since
    since=$(now)
    start_in local "bash /usr/local/lib/touchauth-e2e/polkit_tty.sh id -u"
    wait_armed
    wait_screen local "$PROMPT" 50
    OUT=$(screen_of local)
    check "drop-in: pkexec in the session -> our prompt (the agent is the socket's peer)" has "$PROMPT"
    touch_finger fk
    wait_screen local "rc="
    OUT=$(screen_of local)
    check "...the finger -> AUTHENTICATION COMPLETE, id -u says 0, no password typed" \
        test "$(has "AUTHENTICATION COMPLETE" && grep -qx 0 <<< "$OUT" && echo y)" = y
    OUT=$(journal_since "$since")
    check "...in polkit-agent-helper@.service (socket-activated), the module's audit line: success" \
        test "$(has "polkit-agent-helper@" && has "service polkit-1: success" && echo y)" = y
}

case_run0_finger() {
    start_in local "run0 id -u"
    wait_armed
    wait_screen local "$PROMPT" 50
    OUT=$(screen_of local)
    check "run0 id -u in the session -> polkit's prompt with ours (pkttyagent, the socket-activated helper)" has "$PROMPT"
    touch_finger fk
    wait_screen local "rc="
    OUT=$(screen_of local)
    check "...the finger -> id -u says 0, rc=0" test "$(grep -qx 0 <<< "$OUT" && has "rc=0" && echo y)" = y
    # The lead's part 1 (the module answers pkttyagent's line protocol): the password at once
    # beside the finger. Until it lands, the password comes after our timeout.
    if [ "${TOUCHAUTH_E2E_RUN0_BOTH:-0}" = 1 ]; then
        start_in local "run0 id -u"
        wait_armed
        wait_screen local "Password:" 50
        OUT=$(screen_of local)
        check "run0: the password field and the finger at once" test "$(has "Password:" && armed && echo y)" = y
        password_in local
        wait_screen local "rc="
        OUT=$(screen_of local)
        check "...the password typed while armed -> id -u says 0, the sensor closed" \
            test "$(grep -qx 0 <<< "$OUT" && ! inroot pgrep -f 'touchauth pam-verify' > /dev/null && echo y)" = y
    fi
}

case_run0_ssh() {
    local since port=2247 key=/etc/ssh/touchauth-e2e_host_key
    inroot sh -c "ssh-keygen -q -t ed25519 -N '' -f $key && mkdir -p -m 0755 /run/sshd &&
        printf '%s\n' 'Port $port' 'ListenAddress 127.0.0.1' 'HostKey $key' 'UsePAM yes' \
        'PasswordAuthentication yes' 'KbdInteractiveAuthentication no' > /etc/ssh/touchauth-e2e.conf &&
        systemd-run --quiet --unit=touchauth-e2e-sshd /usr/sbin/sshd -D -f /etc/ssh/touchauth-e2e.conf"
    for _ in $(seq 100); do inroot sh -c "echo > /dev/tcp/127.0.0.1/$port" 2>/dev/null && break; sleep 0.1; done
    since=$(now)
    tm new-window -d -t s -n ssh "sshpass -p '$PW' ssh -tt -p $port -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null $TU@127.0.0.1"
    wait_screen ssh "$TU@" 100
    start_in ssh "run0 id -u"
    wait_screen ssh "Password:" 100
    OUT=$(screen_of ssh)
    check "run0 over ssh: polkit's password prompt, not ours, the sensor never armed" \
        test "$(has "Password:" && lacks "$PROMPT" && ! armed && echo y)" = y
    OUT=$(journal_since "$since")
    # The agent's own environment holds ssh's variables (read at the socket's peer), so that rule
    # says it before logind's is asked.
    check "...the module says why: a remote session (the agent's SSH_* variables, before logind)" \
        has "remote session (SSH_* in the PAM or process environment)"
    password_in ssh
    wait_screen ssh "rc="
    OUT=$(screen_of ssh)
    check "...the password -> id -u says 0" grep -qx 0 <<< "$OUT"
    tm kill-window -t s:ssh 2>/dev/null
    inroot systemctl stop touchauth-e2e-sshd 2>/dev/null
}

case_ "polkit 128's socket-activated helper: the unit, our drop-in" case_unit
case_ "without our drop-in: the password at once" case_no_dropin
case_ "pkexec in a local session: the finger" case_pkexec_finger
case_ "run0 in a local session: the finger" case_run0_finger
case_ "run0 over ssh: never the finger" case_run0_ssh

tm kill-server 2>/dev/null
stop_root
echo "# forky: $((SECONDS - STARTED)) s in all"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
