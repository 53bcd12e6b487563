#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the test suite on a fresh machine: a Debian 12 root made by `mmdebstrap --variant=apt
# bookworm` (Essential packages and apt, nothing else) plus the Swift toolchain at /opt/swift,
# so that a test needing something the scripts do not install fails here.
#   scripts/fresh-root.sh [TEST.SH ARGS...]     bash scripts/test.sh ARGS in a fresh copy
#   scripts/fresh-root.sh --run CMD [ARG...]    CMD ARGS there instead (cwd: the checkout)
# Options before those: --keep (leave the copy, print its path), --root DIR (reuse a kept copy:
# its packages and .build stay, the checkout is copied over again), --release trixie (a fresh
# Debian 13 instead, with no /opt/swift: the scripts must install Debian's swiftlang).
# As root. The pristine root is made once (about 35 s) and cached as a tarball in
# $TOUCHAUTH_FRESH_CACHE (default /var/cache/touchauth; remade after 7 days); each run unpacks a
# copy, with the checkout (git's files: tracked and new, not the ignored build output) at
# /build/touchauth. Downloaded .debs are kept there too (apt still installs every package).
# The run is in a mount and a PID namespace of its own, the root pivoted to: /proc, /sys
# (the cgroup2 hierarchy of the fake-logind suites), a private /dev (device nodes, a devpts of
# its own), an empty /run, /opt/swift read-only and the cache directory (debian13.sh keeps its
# trixie roots there); nothing it mounts or starts outlives it,
# and none of the host's processes are visible to it (its kills, pgrep and pkill see the
# root's only). CI=true, stdin /dev/null, a clean environment.
# Exit status: the command's. Prints how long each phase took (root, install+build, suites).
source "$(dirname "$0")/lib.sh"
SRC=$ROOT

KEEP="" REUSE="" RELEASE=bookworm
while [ $# -gt 0 ]; do
    case $1 in
        --keep) KEEP=1; shift ;;
        --release) RELEASE=$2; shift 2
            case $RELEASE in bookworm | trixie) ;; *) echo "fresh-root.sh: --release bookworm or trixie" >&2; exit 2 ;; esac ;;
        --root) REUSE=$2; KEEP=1; shift 2 ;;
        *) break ;;
    esac
done
if [ "${1:-}" = --run ]; then shift; [ $# -gt 0 ] || { echo "fresh-root.sh: --run needs a command" >&2; exit 2; }
else set -- bash scripts/test.sh "$@"; fi
[ "$(id -u)" -eq 0 ] || { echo "fresh-root.sh: run as root" >&2; exit 2; }
[ "$RELEASE" != bookworm ] || [ -x /opt/swift/usr/bin/swift ] || { echo "fresh-root.sh: no Swift toolchain at /opt/swift" >&2; exit 2; }

START=$SECONDS
# A signal ends the run through the EXIT trap (cleanup), after the step in the foreground.
trap 'exit 130' INT TERM HUP
ensure_packages mmdebstrap
CACHE=${TOUCHAUTH_FRESH_CACHE:-/var/cache/touchauth}
# (trixie-fresh.tar: tests/e2e/debian13.sh keeps a trixie-apt.tar of its own, with its clients.)
PRISTINE=$CACHE/bookworm-apt.tar
[ "$RELEASE" = bookworm ] || PRISTINE=$CACHE/$RELEASE-fresh.tar
TRIXIE_CACHE=$CACHE
DEBS=$CACHE/debs
[ "$RELEASE" = bookworm ] || DEBS=$CACHE/debs-$RELEASE
mkdir -p "$CACHE" "$DEBS"

# The pristine root: Debian's archive as a container image's sources have it (main, updates,
# security). One maker at a time; readers take the finished tarball.
make_pristine() {
    exec 9> "$CACHE/lock"
    flock 9
    if [ -s "$PRISTINE" ] && [ -z "$(find "$PRISTINE" -mtime +7)" ]; then return 0; fi
    echo "fresh-root: making the pristine root (mmdebstrap --variant=apt $RELEASE)"
    rm -f "$CACHE/new.tar"
    mmdebstrap --variant=apt --format=tar --quiet "$RELEASE" "$CACHE/new.tar" \
        "deb http://deb.debian.org/debian $RELEASE main" \
        "deb http://deb.debian.org/debian $RELEASE-updates main" \
        "deb http://deb.debian.org/debian-security $RELEASE-security main"
    mv "$CACHE/new.tar" "$PRISTINE"
}

# Unmounts whatever is still mounted under the copy (nothing, normally: the mounts are in the
# run's namespace) and removes it; keeps the run's .debs for the next one.
cleanup() {
    local rc=$?
    [ -n "${R:-}" ] || exit $rc
    if [ -d "$R/var/cache/apt/archives" ]; then
        find "$R/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -nl -t "$DEBS" {} + 2>/dev/null || true
    fi
    if [ -n "$KEEP" ]; then echo "fresh-root: kept $R" >&2; exit $rc; fi
    local m
    for m in $(findmnt -rn -o TARGET | grep -F "$R/" | sort -r); do umount -l "$m" || true; done
    if findmnt -rn -o TARGET | grep -qF "$R/"; then echo "fresh-root: $R still has mounts: left in place" >&2
    else rm -rf --one-file-system "$(dirname "$R")"; fi
    exit $rc
}

if [ -n "$REUSE" ]; then
    R=$(cd "$REUSE" && pwd)
    [ -x "$R/usr/bin/apt-get" ] || { echo "fresh-root.sh: $R is not a root" >&2; exit 2; }
    mkdir -p "$(dirname "$R")/run"
    trap cleanup EXIT
    echo "fresh-root: reusing $R"
else
    make_pristine
    TMP=$(mktemp -d /var/tmp/touchauth-fresh.XXXXXX)
    R=$TMP/root
    trap cleanup EXIT
    mkdir "$R"
    tar -xpf "$PRISTINE" --numeric-owner -C "$R"
    # Earlier runs' downloads, linked in (apt checks each against the archive's hash).
    find "$DEBS" -maxdepth 1 -name '*.deb' -exec cp -l -t "$R/var/cache/apt/archives" {} + 2>/dev/null || true
    # apt needs a resolver; sudo resolves the machine's name (else "unable to resolve host").
    cp -L /etc/resolv.conf "$R/etc/resolv.conf"
    hostname > "$R/etc/hostname"
    echo "127.0.1.1 $(hostname)" >> "$R/etc/hosts"
    mkdir -p "$R/opt/swift"
    mkdir -m 0755 "$TMP/run"
fi
# The checkout as a clone has it: git's files (tracked and new, not ignored; removed ones
# skipped) with a git index of its own (tests/spdx.sh asks git for the file list).
W=$R/build/touchauth
mkdir -p "$W"
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done |
    tar --null --no-recursion -T - -cf -) | tar -xpf - -C "$W"
rm -rf "$W/.git"
git -C "$W" init -q && git -C "$W" add -A
ROOT_S=$((SECONDS - START))
echo "fresh-root: root ready in ${ROOT_S} s ($R)"

# enter ROOT CMD...: PID 1 of the run's namespaces (a private mount namespace, a PID one).
# Mounts what the root needs, pivots into it and runs CMD there; reaps the orphans; exits
# with CMD's status.
enter() {
    set -eu
    local r=$1; shift
    mount --bind "$r" "$r"
    mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
    mount --rbind /sys "$r/sys"
    # A private /dev, not the host's: what a suite makes there (its /dev/log) stays in the run.
    mount -t tmpfs -o nosuid,mode=0755,size=16m dev "$r/dev"
    local n ma mi
    while read -r n ma mi; do mknod -m 0666 "$r/dev/$n" c "$ma" "$mi"; done <<'EOF'
null 1 3
zero 1 5
full 1 7
random 1 8
urandom 1 9
tty 5 0
EOF
    mkdir -m 0755 "$r/dev/pts"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$r/dev/pts"
    ln -s pts/ptmx "$r/dev/ptmx"
    mkdir -m 1777 "$r/dev/shm"
    mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$r/dev/shm"
    ln -s /proc/self/fd "$r/dev/fd"
    ln -s /proc/self/fd/0 "$r/dev/stdin"; ln -s /proc/self/fd/1 "$r/dev/stdout"; ln -s /proc/self/fd/2 "$r/dev/stderr"
    # /run empty at first, as at boot, but for /run/lock (no /run/systemd/system: no logind):
    # a directory of the copy's own, not the root's, so that a kept copy's next run has what
    # its packages' postinsts made there (/run/dbus, /run/systemd), as a machine not rebooted.
    mount --bind "$(dirname "$r")/run" "$r/run"
    mkdir -p -m 1777 "$r/run/lock"
    if [ "$RELEASE" = bookworm ]; then
        mount --bind /opt/swift "$r/opt/swift"
        mount -o remount,bind,ro "$r/opt/swift"
    fi
    # The cache of the Debian 13 suite (tests/e2e/debian13.sh: its trixie-*.tar roots and
    # downloads), the machine's, at the suite's default path, so that a run does not make the
    # roots and fetch swiftlang (500 MB of .debs) again.
    mkdir -p "$r/var/cache/touchauth"
    mount --bind "$TRIXIE_CACHE" "$r/var/cache/touchauth"
    cd "$r"
    mkdir -p .oldroot
    pivot_root . .oldroot
    cd /
    # The root has no umount (package mount is not Essential): the host's, from inside the
    # old root, where the old root is "/".
    chroot /.oldroot umount -l /
    rmdir /.oldroot
    # --default-signal: SIGINT and SIGQUIT as in a foreground run (a background job has them
    # ignored, and ignored signals are inherited: Ctrl-C checks would see nothing).
    env --default-signal=INT,QUIT -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root \
        LOGNAME=root SHELL=/bin/bash CI=true ${TOUCHAUTH_E2E_USER:+TOUCHAUTH_E2E_USER=$TOUCHAUTH_E2E_USER} \
        sh -c 'cd /build/touchauth && exec "$@"' sh "$@" < /dev/null &
    local child=$! rc=0
    # As PID 1, bash's wait also reaps the orphans re-parented to it.
    wait "$child" || rc=$?
    exit $rc
}

# Passes the output through, noting when the build's suite ends (install+build vs suites).
BUILD_END=""
phases() {
    local line seen=""
    while IFS= read -r line; do
        printf '%s\n' "$line"
        case $line in
            "=== build"*) seen=1 ;;
            "=== "*) if [ -n "$seen" ] && [ ! -s "$TMARK" ]; then echo "$SECONDS" > "$TMARK"; fi ;;
        esac
    done
}
TMARK=$(mktemp /tmp/touchauth-fresh-mark.XXXXXX)
RUN_START=$SECONDS
# unshare --fork blocks SIGINT and SIGTERM while it waits: an interrupted run SIGKILLs it, and
# --kill-child then ends the run's PID 1, with it every process of the run.
exec 3> >(phases)
PHASES=$!
unshare --mount --pid --fork --propagation private --kill-child \
    bash -c "TRIXIE_CACHE=$TRIXIE_CACHE RELEASE=$RELEASE; $(declare -f enter); enter \"\$@\"" enter "$R" "$@" >&3 2>&3 &
UNSHARE=$!
exec 3>&-
trap 'kill -KILL "$UNSHARE" 2>/dev/null; wait "$PHASES"; exit 130' INT TERM HUP
rc=0
wait "$UNSHARE" || rc=$?
wait "$PHASES" || true
trap 'exit 130' INT TERM HUP
END=$SECONDS
BUILD_END=$(cat "$TMARK"); rm -f "$TMARK"
if [ -n "$BUILD_END" ]; then
    echo "fresh-root: phases: root ${ROOT_S} s, install+build $((BUILD_END - RUN_START)) s, suites $((END - BUILD_END)) s, total $((END - START)) s (exit status $rc)" >&2
else
    echo "fresh-root: phases: root ${ROOT_S} s, command $((END - RUN_START)) s, total $((END - START)) s (exit status $rc)" >&2
fi
exit $rc
