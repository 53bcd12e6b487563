#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sandbox.sh CMD [ARG...]: runs CMD on a machine of its own as far as the product's rules can
# tell: every piece of the host that a rule reads is set to what a fresh machine shows, whatever
# this machine shows (docs/TESTING.md#a-test-sets-every-piece-of-the-host-its-rule-reads).
# A suite that needs another value sets it itself, in this sandbox (vt_on_screen in lib.sh, its
# own fake logind over /run/systemd, lid_dir and sysfs_dir in its config).
#   - the environment: only PATH (the standard one), HOME, USER, LOGNAME, SHELL and the
#     harness's own variables (TOUCHAUTH_*, HELPER, MODULE, SWIFT, CI, ...): no SSH_*, no
#     locale variables, no DISPLAY, no TERM; stdin /dev/null and no controlling terminal (as CI);
#   - a private mount namespace and a cgroup namespace:
#     /sys/class/tty/tty0/active  "tty1" (a file of the sandbox's: writable, see vt_on_screen)
#     /run/systemd                an empty tmpfs: no logind, no session, no seat
#     /proc/acpi/button/lid       an empty tmpfs where the machine has a lid: no lid
#     /run/touchauth              an empty tmpfs, root 0700: the registry of armed requests
#                                 (docs/POLICY.md#one-request-at-a-time) of this suite alone
#     cgroup2                     mounted anew: this process at the root of its hierarchy
#                                 (outside any logind session; a suite's fake session scopes
#                                 are made below it and leave the machine's tree alone).
# Nested calls (a suite's re-exec, debian13's inner run) find TOUCHAUTH_SANDBOX=1 and run CMD
# as it is. Root only.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: sandbox.sh CMD [ARG...]" >&2; exit 2; }
if [ "${TOUCHAUTH_SANDBOX:-}" = 1 ]; then exec "$@"; fi
[ "$(id -u)" -eq 0 ] || { echo "sandbox.sh: run as root (the suites are)" >&2; exit 2; }

if [ "${TOUCHAUTH_SANDBOX:-}" != entering ]; then
    keep=()
    while IFS='=' read -r -d '' name value; do
        case $name in
            TOUCHAUTH_SANDBOX) ;;
            TOUCHAUTH_* | HELPER | MODULE | SWIFT | CI | E2E_KEEP | E2E_GUARD_SECONDS | VG_RUNS | SSHD_E2E_VERBOSE | CLIENTS_LOGS)
                keep+=("$name=$value") ;;
        esac
    done < /proc/self/environ
    exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        USER=root LOGNAME=root SHELL=/bin/bash "${keep[@]}" TOUCHAUTH_SANDBOX=entering \
        unshare --mount --cgroup --propagation private -- bash "$0" "$@" < /dev/null
fi

# In the new namespaces. /run/systemd may be missing (a minimal root has none until a package
# makes it): /run is a tmpfs, an empty directory there is gone at the next boot.
[ -d /run/systemd ] || mkdir -m 0755 /run/systemd
mount -t tmpfs -o mode=0755,size=1m touchauth-sandbox /run/systemd
printf 'tty1\n' > /run/systemd/.vt
if [ -e /sys/class/tty/tty0/active ]; then
    mount --bind /run/systemd/.vt /sys/class/tty/tty0/active
else  # (no virtual consoles, as in some containers: a /sys/class/tty of the sandbox's)
    mount -t tmpfs -o mode=0755,size=4k touchauth-tty /sys/class/tty
    mkdir /sys/class/tty/tty0 && mv /run/systemd/.vt /sys/class/tty/tty0/active
fi
rm -f /run/systemd/.vt
[ -d /run/touchauth ] || mkdir -m 0700 /run/touchauth
mount -t tmpfs -o mode=0700,size=1m touchauth-armed /run/touchauth
if [ -d /proc/acpi/button/lid ]; then mount -t tmpfs -o mode=0755,size=4k touchauth-no-lid /proc/acpi/button/lid; fi
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
    if [ "$(stat -f -c %T "$d" 2> /dev/null)" = cgroup2fs ]; then
        # (the kernel refuses cgroup2 on a cgroup2 mount's root, EBUSY: on a tmpfs there first)
        mount -t tmpfs -o size=4k touchauth-cgroup "$d"
        mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 "$d"
        grep -qx "$$" "$d/cgroup.procs" || { echo "sandbox.sh: $$ not at the top of $d" >&2; exit 1; }
        break
    fi
done
export TOUCHAUTH_SANDBOX=1
# No controlling terminal, as under CI (a PAM client started from a developer's terminal would
# otherwise find one: TERMINAL_NOBODY where CI sees TERMINAL_NONE): a session of its own, with
# SIGINT and SIGQUIT at their defaults (an async command has them ignored), ended with TERM
# when this shell is (by a signal it forwards, or by its death: the parent-death signal).
env --default-signal=INT,QUIT setpriv --pdeathsig TERM setsid -w "$@" &
child=$!
trap 'kill -TERM -- "-$child" 2> /dev/null' INT TERM HUP
rc=0
while kill -0 "$child" 2> /dev/null; do wait "$child" && rc=0 || rc=$?; done
exit $rc
