#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No free try on a slow disk (issue 11, docs/decisions/0001-no-free-try.md): the helper's disk writes made
# slow (the helper set as `helper=` is a root-owned wrapper that preloads an fsync/fdatasync
# sleeping SLOW_MS first), then six times: a wrong finger, Enter once the helper is inside the
# slowed write that settles it. Enter makes the module SIGTERM the helper and SIGKILL it 200 ms later, in the middle of
# whatever it is writing. A strike written only after the scan dies with that write; a strike
# charged before the scan is already on disk: five rounds lock, the sixth is refused before
# the sensor opens.
#
# Enter ends the prompt only when the module owns a terminal, so pamtester (under pam_wrapper)
# runs in a tmux pane, in its foreground, with the pane's pty as PAM_TTY.
# Proofs: the state file after each round (strikes 1..5); the preload's log (each round's
# helper killed inside a slowed fsync); the vsensor socket (appears only when the sensor opens).
# Also on the quick disk (issue 20): a verdict the sensor reported before Enter stands when the
# driver completes the scan after it (virtual_device's SLEEP behind the scan), for verify and
# identify; the helper's debug line for the report (syslog) is the event Enter waits for.
# The common setup (the user's print, the slow and quick services, the tmux pane, the syslog
# capture) is shared; each case (case_ of lib.sh) writes the state it starts from, so it passes
# alone and `scripts/test.sh slow-disk:REGEX` runs only the cases it picks.
source "$(dirname "$0")/../../scripts/lib.sh"
ensure_packages pamtester libpam-wrapper libpam-modules python3 tmux gcc libc6-dev socat util-linux
source "$(dirname "$0")/lib.sh"

for tool in tmux gcc pamtester python3 socat unshare; do
    command -v "$tool" > /dev/null || { echo "missing $tool"; echo "0 passed, 1 failed"; exit 1; }
done
SLOW_MS=${SLOW_MS:-1200}
make_user "$TUSER" "$TPASS"
TUID=$(id -u "$TUSER")
CONF="$T/touchauth.conf"  # enroll() reads this one
mkdir -m 0700 "$T/state"
write_config "$CONF" "state_dir=$T/state" "password_after_boot=no" "password_max_age=0" \
    "password_after_enroll_change=no"
enroll "$TUSER" right-index-finger tu-right-index || { cat "$T/enroll.out"; echo "0 passed, 1 failed"; exit 1; }

TMUX_SOCK="$T/tmux.sock"
TMUX_PID=""
# The server ends asynchronously: wait (bounded) for it before removing its directory.
cleanup() {
    [ -n "${SYSLOG_PID:-}" ] && syslog_stop
    tm kill-server 2>/dev/null
    if [ -n "$TMUX_PID" ]; then
        for _ in $(seq 200); do kill -0 "$TMUX_PID" 2>/dev/null || break; sleep 0.01; done
    fi
    rm -rf "$T"
}
trap cleanup EXIT

# The slow disk: fsync and fdatasync sleep SLOW_MS, then do the real thing. Each call logs
# "begin PID" and "end PID": a begin without its end is a helper killed inside the slow write.
mkdir -m 0755 "$T/bin"
cat > "$T/bin/slowfsync.c" <<EOF
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static void note(const char *what)
{
	char line[64];
	int fd = open("$T/fsync.log", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	snprintf(line, sizeof line, "%s %ld\n", what, (long)getpid());
	(void)!write(fd, line, strlen(line));
	close(fd);
}
static int slow(const char *name, int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, name);
	struct timespec t = { $SLOW_MS / 1000, ($SLOW_MS % 1000) * 1000000L };
	int r;
	note("begin");
	while (nanosleep(&t, &t) != 0)
		;
	r = real ? real(fd) : 0;
	note("end");
	return r;
}
int fsync(int fd) { return slow("fsync", fd); }
int fdatasync(int fd) { return slow("fdatasync", fd); }
EOF
gcc -shared -fPIC -O2 -o "$T/bin/slowfsync.so" "$T/bin/slowfsync.c" -ldl
# Root-owned, 0755, in a directory only root writes: the module runs nothing else
# (pam/options.c trusted_by_root). It runs the helper with an empty environment, so the
# wrapper sets LD_PRELOAD itself.
printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$T/bin/slowfsync.so" "$HELPER" > "$T/bin/slow-helper"
chmod 0755 "$T/bin/slow-helper" "$T/bin/slowfsync.so"

service fast "auth [success=done default=ignore] $MODULE config=$CONF helper=$HELPER debug" \
    "auth required pam_unix.so nodelay"
service slow "auth [success=done default=ignore] $MODULE config=$CONF helper=$T/bin/slow-helper debug" \
    "auth required pam_unix.so nodelay"

tm -f /dev/null new-session -d -s t -x 160 -y 50 \
    "env -i HOME=$T HISTFILE=/dev/null TERM=screen PATH=/usr/sbin:/usr/bin:/sbin:/bin PS1='# ' bash --norc --noprofile"
tm set-option -g history-limit 0 > /dev/null
TMUX_PID=$(tm display -p '#{pid}')

# start: pamtester in the pane's foreground (the module owns the terminal), its status to $T/rc;
# IN_NS, when set, a prefix that runs it in a mount namespace (the late-verdict section's syslog).
IN_NS=""
start() {  # start [SERVICE]
    rm -f "$T/rc" "$SOCK"
    tm send-keys -t t "clear; ${IN_NS}env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR=$T/pam.d pamtester -v -I tty=\$(tty) ${1:-slow} $TUSER authenticate; echo \$? > $T/rc" Enter
}
finish() { wait_file "$T/rc" 20; OUT=$(screen); }
# (strikes: tests/e2e/kit/state.sh)
PROMPT="Place your finger on the fingerprint reader"
HINT="[Enter Password] press Enter, or type your password"
LOCKED="Too many failed attempts"
# Enter, then a wrong password at pam_unix's prompt, until pamtester ends.
enter_then_wrong_password() {
    tm send-keys -t t Enter
    wait_for "" "Password:" 15
    tm send-keys -t t -l "not the password"
    tm send-keys -t t Enter
    finish
}
# wait_charged: until the scan's strike is on disk (at most 15 s); CHARGED the strikes then.
wait_charged() {
    local t0
    t0=$(now_ms)
    until [ "$(strikes)" = 1 ] || [ $(($(now_ms) - t0)) -ge 15000 ]; do sleep 0.01; done
    CHARGED=$(strikes)
}
# The late verdicts' syslog: the pane's helper logs to our socket; where the machine has a
# /dev/log of its own, ours is bound over it in a private mount namespace (as lib.sh's
# in_syslog_ns, typed into the pane): LATE_NS, the prefix those cases give start (IN_NS).
syslog_start
LATE_NS=""
[ "$SYSLOG_SOCK" = /dev/log ] || LATE_NS="unshare -m sh -c 'mount --bind \"\$0\" /dev/log && exec \"\$@\"' $SYSLOG_SOCK "

right_finger_slow() {
    fresh_state
    start
    wait_for "" "$HINT" 15
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN tu-right-index" > /dev/null 2>&1
    finish
    check "the module runs the wrapper, the right finger authenticates" has "successfully authenticated"
    check "...and a match leaves no strike" test "$(strikes)" = 0
}
case_ "(control) the right finger through the slow wrapper" right_finger_slow

enter_no_finger() {
    fresh_state
    start fast
    wait_for "" "$HINT" 15
    # The charge is written after the sensor opens (its socket), before the scan: wait for it on disk.
    wait_charged
    enter_then_wrong_password
    check "(setup) the sensor waited with the scan's strike charged (strikes $CHARGED)" test "$CHARGED" = 1
    check "Enter with no finger costs no strike (strikes $(strikes); ${CHARGED} while the sensor waited)" test "$(strikes)" = 0
}
case_ "(control) Enter with no finger on a quick disk: the charged strike is refunded" enter_no_finger

enter_before_charge() {
    set_state 0 -   # (as after an unlock: a state file whose inode and mtime must stay)
    # The window is a few microseconds (the charge follows the last prompt line at once), so a second
    # preload holds it open: the helper's write of the hint line returns only once the helper has
    # taken the module's SIGTERM (its sigwait returned), so Enter lands inside it every time. Its
    # log: "hint PID", "sigterm PID", "released PID". The fsync preload beside it logs any write.
    cat > "$T/bin/holdhint.c" <<EOF
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static ssize_t (*real_write)(int, const void *, size_t);
static volatile int terminated;
static void note(const char *what)
{
	char line[64];
	int fd = open("$T/hold.log", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	snprintf(line, sizeof line, "%s %ld\\n", what, (long)getpid());
	(void)!real_write(fd, line, strlen(line));
	close(fd);
}
int sigwait(const sigset_t *set, int *sig)
{
	int (*real)(const sigset_t *, int *) = (int (*)(const sigset_t *, int *))dlsym(RTLD_NEXT, "sigwait");
	int r = real(set, sig);
	if (r == 0 && *sig == SIGTERM) {
		note("sigterm");
		__atomic_store_n(&terminated, 1, __ATOMIC_SEQ_CST);
	}
	return r;
}
ssize_t write(int fd, const void *buf, size_t n)
{
	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	ssize_t r = real_write(fd, buf, n);
	if (fd == 1 && memmem(buf, n, "press Enter", 11)) {
		struct timespec ms = { 0, 1000000 };
		note("hint");
		for (int i = 0; i < 10000 && !__atomic_load_n(&terminated, __ATOMIC_SEQ_CST); i++)
			nanosleep(&ms, NULL);
		note("released");
	}
	return r;
}
EOF
    gcc -shared -fPIC -O2 -o "$T/bin/holdhint.so" "$T/bin/holdhint.c" -ldl
    printf '#!/bin/sh\nLD_PRELOAD="%s %s" exec %s "$@"\n' "$T/bin/slowfsync.so" "$T/bin/holdhint.so" "$HELPER" \
        > "$T/bin/held-helper"
    chmod 0755 "$T/bin/held-helper" "$T/bin/holdhint.so"
    service held "auth [success=done default=ignore] $MODULE config=$CONF helper=$T/bin/held-helper debug" \
        "auth required pam_unix.so nodelay"
    : > "$T/fsync.log"
    : > "$T/hold.log"
    local before hpid held
    before=$(stat -c '%i %Y' "$T/state/$TUID" 2>&1)
    start held
    wait_for "" "$HINT" 15
    enter_then_wrong_password
    check "Enter while the prompt's lines were being sent: the prompt went on to the password" has "Password:"
    hpid=$(sed -n 's/^hint //p' "$T/hold.log" | head -1)
    held=$(grep " ${hpid:-none}\$" "$T/hold.log" | cut -d' ' -f1 | tr '\n' ' ')
    OUT="hold log: $(tr '\n' ' ' < "$T/hold.log"); fsync log: $(tr '\n' ' ' < "$T/fsync.log")"
    check "(setup) Enter came while the helper held its hint line, before any charge (got: $held)" \
        test "$held" = "hint sigterm released "
    check "Enter before the first charge: the helper began no state write (no fsync)" \
        test -n "$hpid" -a ! -s "$T/fsync.log"
    check "...no strike (strikes $(strikes)), the state file untouched (inode, mtime: $before)" \
        test "$(strikes)" = 0 -a "$(stat -c '%i %Y' "$T/state/$TUID" 2>&1)" = "$before"
}
case_ "Enter between the prompt's lines and the first charge: nothing charged, nothing written" enter_before_charge

# --- a verdict the sensor reported before Enter stands, however late the driver completes the scan
# libfprint reports a scan's verdict (the verify/identify match_cb) before the scan completes (an
# image sensor completes once the finger is lifted); virtual_device holds the completion for a
# SLEEP queued behind the scan (SLEEP_LATE). Enter in between cancels a scan whose verdict is in:
# the call fails with G_IO_ERROR_CANCELLED, and the reported verdict must stand. The quick disk
# (`fast`): the strikes on disk are the proof. Enter waits for the helper's debug line for the
# report (the charge is on disk before the scan: the strikes are no event). SLEEP_LEAD holds the
# driver until the scan and the SLEEP behind it are both queued (vsensor.py sends one command a
# connection, and the driver reads each as it comes: a scan alone completes at once).
SLEEP_LEAD="SLEEP 1000"
# The completion held past the 5 s that `logged` waits: without the line Enter still comes first.
SLEEP_LATE="SLEEP 8000"
NOTREC="Not recognized"
# late SERVICE SOCKET LINE COMMANDS...: the prompt; the commands sent; Enter once LINE is logged
# (at most 5 s), then a wrong password. Sets REPORTED (LINE logged), AT_ENTER (the screen, and
# whether pamtester had ended, as Enter was pressed), OUT.
late() {
    local svc=$1 sock=$2 line=$3; shift 3
    : > "$T/syslog"
    rm -f "$sock"
    IN_NS=$LATE_NS start "$svc"
    wait_for "" "$HINT" 15
    python3 "$E2E/vsensor.py" "$sock" "$@" > /dev/null 2>&1
    REPORTED=no
    logged "$line" && REPORTED=yes
    AT_ENTER="$(screen)
ended: $([ -e "$T/rc" ] && echo yes || echo no)"
    enter_then_wrong_password
}
pending() { grep -qx "ended: no" <<<"$AT_ENTER" && ! grep -qF -- "$NOTREC" <<<"$AT_ENTER"; }
NO_MATCH_LINE="$TUSER: the sensor reported no match"
MATCH_LINE="$TUSER: the sensor reported a match (right-index-finger)"

late_control() {
    # The control: the sensor asleep, no scan: no verdict, the charge refunded.
    fresh_state
    : > "$T/syslog"
    rm -f "$SOCK"
    IN_NS=$LATE_NS start fast
    wait_for "" "$HINT" 15
    python3 "$E2E/vsensor.py" "$SOCK" "$SLEEP_LATE" > /dev/null 2>&1
    wait_charged
    enter_then_wrong_password
    check "(setup) the sensor slept with the scan's strike charged (strikes $CHARGED)" test "$CHARGED" = 1
    check "(control) SLEEP with no scan, then Enter: no verdict, the strike refunded (strikes $(strikes))" \
        test "$(strikes)" = 0
    check "(control) ...and the prompt went on to the password" has "Password:"
}
case_ "late verdicts: (control) the sensor asleep, no scan, then Enter" late_control

late_wrong() {
    fresh_state
    late fast "$SOCK" "$NO_MATCH_LINE" "$SLEEP_LEAD" "SCAN wrong-id" "$SLEEP_LATE"
    OUT="$AT_ENTER"
    check "(setup) the sensor reported the wrong finger (the helper's debug line)" test "$REPORTED" = yes
    check "(setup) ...and Enter came before the scan completed (no '$NOTREC', pamtester running)" pending
    OUT=$(screen)
    check "a wrong finger reported before Enter, its scan completed after it: the strike stays (strikes $(strikes))" \
        test "$(strikes)" = 1
    check "...and the prompt went on to the password" has "Password:"
}
case_ "late verdicts: a wrong finger reported before Enter (verify)" late_wrong

late_right() {
    # The right finger, one strike on disk before the prompt: the match stands (the strikes start
    # over), but the prompt was ended by the user: never a success, the password is asked.
    set_state 1 -
    check "(setup) one strike on disk before the right finger's prompt (strikes $(strikes))" test "$(strikes)" = 1
    late fast "$SOCK" "$MATCH_LINE" "$SLEEP_LEAD" "SCAN tu-right-index" "$SLEEP_LATE"
    local RC_LATE
    RC_LATE=$(cat "$T/rc" 2>/dev/null)
    OUT="$AT_ENTER"
    check "(setup) the sensor reported the right finger (the helper's debug line)" test "$REPORTED" = yes
    check "(setup) ...and Enter came before the scan completed (pamtester running)" pending
    OUT=$(screen)
    check "the right finger reported, then Enter: no success, the password is asked (and refused: rc $RC_LATE)" \
        eval 'has "Password:" && lacks "successfully authenticated" && test -n "$RC_LATE" -a "$RC_LATE" != 0'
    check "...and the match starts the strikes over (strikes $(strikes); 1 before the prompt)" test "$(strikes)" = 0
}
case_ "late verdicts: the right finger reported before Enter (verify)" late_right

# identify (a sensor that identifies, two prints): virtual_device_storage, whose chip lives in the
# helper process: the wrong finger is put on the chip first (INSERT), so the chip reads it and
# reports no match; a finger the chip lacks fails the call instead.
SSOCK="$T/store.sock"
SCONF="$T/store.conf"
store_enroll() {  # store_enroll FINGER ID
    rm -f "$SSOCK"
    python3 "$E2E/vsensor.py" "$SSOCK" "SCAN $2" "SCAN $2" "SCAN $2" "SCAN $2" "SCAN $2" > /dev/null 2>&1 &
    local sender=$!
    "$HELPER" enroll --user "$TUSER" --finger "$1" --config "$SCONF" --replace > "$T/enroll.out" 2>&1
    local rc=$?
    wait "$sender"
    return $rc
}
sstrikes() { STATE="$T/sstate" strikes; }   # the strikes in the chip's state dir (kit/state.sh)
late_identify() {
    rm -rf "$T/sstate" "$T/sprints"
    mkdir -m 0700 "$T/sstate"
    { echo "# written by the e2e tests"; echo "virtual_device_storage = $SSOCK"; echo "print_dir = $T/sprints"
      echo "state_dir = $T/sstate"; echo "password_after_boot = no"; echo "password_max_age = 0"
      echo "password_after_enroll_change = no"; echo "terminal_without_logind = yes"; } > "$SCONF"
    chmod 0644 "$SCONF"
    store_enroll right-index-finger chip-ri && store_enroll right-thumb chip-rt
    local STORE_RC=$?
    service store "auth [success=done default=ignore] $MODULE config=$SCONF helper=$HELPER debug" \
        "auth required pam_unix.so nodelay"
    late store "$SSOCK" "$NO_MATCH_LINE" "INSERT chip-stranger" "$SLEEP_LEAD" "SCAN chip-stranger" "$SLEEP_LATE"
    OUT="$(cat "$T/enroll.out")
$AT_ENTER"
    check "(setup) two prints on virtual_device_storage (enrol rc $STORE_RC)" test "$STORE_RC" = 0
    check "(setup) identify: the chip reported the wrong finger (the helper's debug line)" test "$REPORTED" = yes
    check "(setup) ...and Enter came before the scan completed (no '$NOTREC', pamtester running)" pending
    OUT=$(screen)
    check "identify: a wrong finger reported before Enter keeps its strike (strikes $(sstrikes))" test "$(sstrikes)" = 1
    check "...and the prompt went on to the password" has "Password:"
}
case_ "late verdicts: identify, a wrong finger reported before Enter (virtual_device_storage)" late_identify

six_rounds() {
    fresh_state
    # settling: a helper is inside its third slowed fsync (a "begin PID" without its "end PID"): the
    # charge is two (its file, then the state dir: lockout.sh kills in each), the wrong finger's
    # settle starts with the third.
    settling() { awk '$1=="begin"{b[$2]++} $1=="end"{e[$2]++} END{for (p in b) if (b[p]>=3 && b[p]>e[p]) exit 0; exit 1}' "$T/fsync.log"; }
    : > "$T/fsync.log"
    AFTER=()      # strikes on disk after each round
    REACHED=0     # rounds whose wrong finger the sensor read
    REFUSED=""    # the first round refused before the sensor opened
    local round t0 t1 killed
    for round in 1 2 3 4 5 6; do
        start
        t0=$(now_ms)
        until screen | grep -qF -- "$PROMPT" || screen | grep -qF -- "$LOCKED"; do
            [ $(($(now_ms) - t0)) -lt 15000 ] || break
            sleep 0.01
        done
        if screen | grep -qF -- "$LOCKED"; then
            [ -z "$REFUSED" ] && REFUSED=$round
            ROUND6_SOCKET=$([ -e "$SOCK" ] && echo opened || echo never)
            ROUND6_OUT=$(screen)
        elif python3 "$E2E/vsensor.py" "$SOCK" "SCAN wrong-id" > /dev/null 2>&1; then
            # Enter once the wrong finger's write is under way: the module's SIGKILL lands inside it.
            t1=$(now_ms)
            until settling || [ $(($(now_ms) - t1)) -ge 15000 ]; do sleep 0.005; done
            tm send-keys -t t Enter
            REACHED=$((REACHED + 1))
            [ "$round" = 6 ] && { ROUND6_SOCKET=opened; ROUND6_OUT=$(screen); }
        fi
        wait_for "" "Password:" 15
        tm send-keys -t t -l "not the password"
        tm send-keys -t t Enter
        finish
        AFTER+=("$(strikes)")
        echo "     round $round: strikes on disk ${AFTER[-1]} ($(($(now_ms) - t0)) ms)"
    done
    check "round 1 reached the sensor and its strike is on disk (strikes 1)" test "${AFTER[0]}" = 1
    check "rounds 1-5 each reached the sensor" test "$REACHED" -ge 5
    check "each round's strike is on disk: 1 2 3 4 5 after rounds 1-5 (got ${AFTER[*]:0:5})" \
        test "${AFTER[*]:0:5}" = "1 2 3 4 5"
    check "the preload slowed the helpers' fsyncs ($(grep -c '^begin' "$T/fsync.log" 2>/dev/null) calls)" \
        grep -q "^begin " "$T/fsync.log"
    killed=$(awk '$1=="begin"{b[$2]++} $1=="end"{e[$2]++} END{n=0; for (p in b) if (b[p]>e[p]) n++; print n}' "$T/fsync.log")
    check "the wrong fingers' helpers were SIGKILLed inside a slowed fsync (in $killed of the rounds)" test "$killed" -ge 5
    OUT=${ROUND6_OUT:-}
    check "the 6th attempt: 'Too many failed attempts'" test "$REFUSED" = 6
    check "...without the finger prompt" lacks "$PROMPT"
    check "...and the sensor never opened" test "${ROUND6_SOCKET:-}" = never
    OUT="state file: $(tr '\n' ' ' < "$T/state/$TUID" 2>&1)"
    check "the state file: locked (locked_at set)" eval '! grep -qx "locked_at -" "$T/state/$TUID" && grep -qE "^locked_at [0-9]+$" "$T/state/$TUID"'
    check "the state file: 5 strikes" grep -qx "strikes 5" "$T/state/$TUID"
}
case_ "six times: a wrong finger, Enter once its helper is inside the slowed write after the scan (fsync ${SLOW_MS} ms)" six_rounds

summary
