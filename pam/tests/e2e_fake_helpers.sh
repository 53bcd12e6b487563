#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# e2e_fake_helpers.sh [MODULE.so]
#
# pam_touchauth.so end to end with the real libpam, pam_wrapper and pamtester,
# against fake helpers (shell scripts) that succeed, fail, hang, crash, or
# talk garbage.  Asserts the PAM code, the messages the user saw, the syslog
# lines, and that nothing is left running.  Runs as root (the helper and the
# temp dir must be root-owned); needs no test user: it authenticates root.
#
# The module's pam_syslog() lines appear on stderr as
#   PWRAP_<LEVEL>[<prog> (<pid>)] - SYSLOG(<priority>): <message>
# (LOG_ERR and worse at any PAM_WRAPPER_DEBUGLEVEL; LOG_WARNING from 1;
# LOG_NOTICE, LOG_INFO, LOG_DEBUG only from PAM_WRAPPER_DEBUGLEVEL=2).
#
# The success and hang cases run under valgrind memcheck too (about 6 s; valgrind is in the
# test packages: without it those cases fail, they are never skipped).
set -u

here=$(cd "$(dirname "$0")" && pwd)
module=$(cd "$(dirname "${1:-$here/../pam_touchauth.so}")" && pwd)/$(basename "${1:-pam_touchauth.so}")
[ -f "$module" ] || { echo "no module at $module (run make)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "must run as root" >&2; exit 2; }
command -v pamtester >/dev/null || { echo "pamtester missing" >&2; exit 2; }

# The module skips the sensor in an SSH session and, in a terminal, when stdin is not one:
# pamtester runs in a session of its own (setsid: no controlling terminal), whoever runs this.
unset SSH_CONNECTION SSH_CLIENT SSH_TTY

tmp=$(mktemp -d /tmp/touchauth-e2e.XXXXXX)
trap '[ -n "${E2E_KEEP:-}" ] || rm -rf "$tmp"' EXIT
mkdir -p "$tmp/svc" "$tmp/helpers" "$tmp/out" "$tmp/prints/root" "$tmp/no-prints"
chmod 0755 "$tmp"

passed=0
failed=0
case_name=
guard=

ok() { passed=$((passed + 1)); }
# fail WHY [LOG]: one failed check; LOG's lines are shown under it.
fail() {
	failed=$((failed + 1))
	echo "FAIL: $case_name: $1"
	[ -z "${2:-}" ] || sed 's/^/    /' "$2"
	# scripts/mutate.sh: the first failure is the verdict (as check() in tests/e2e/lib.sh).
	if [ -n "${TOUCHAUTH_FAIL_FAST:-}" ]; then
		echo "stopped at the first failure (TOUCHAUTH_FAIL_FAST)"
		exit 1
	fi
}

MSG_SUCCESS="pamtester: successfully authenticated"
MSG_UNAVAIL="Authentication service cannot retrieve authentication info"
MSG_MAXTRIES="Have exhausted maximum number of retries for service"
MSG_USER_UNKNOWN="User not known to the underlying authentication module"

# helper NAME: the script body on stdin; root-owned 0755.  Every helper
# first records that it ran, and its pid, then saves the request.
helper() {
	{
		echo '#!/bin/sh'
		echo "echo \$\$ > $tmp/out/$1.ran"
		cat
	} >"$tmp/helpers/$1"
	chmod 0755 "$tmp/helpers/$1"
}

# stack NAME LINE...: a service file.
stack() {
	name=$1
	shift
	printf '%s\n' "$@" >"$tmp/svc/$name"
}

# run NAME [pamtester options]: authenticate root with service NAME; output
# (stdout and stderr) in $tmp/out/NAME.log, exit status in $rc, seconds in $secs
# (information only: speed is scripts/bench.sh's).  With $guard set (the cases of
# helpers that hang), a run still going after $guard seconds is killed, so a
# module that never ends a hung helper fails its checks instead of hanging the
# suite (those helpers sleep 1000 s).  Not for the others: timeout(1) catches
# SIGINT, and the success case's host must hand its SIG_IGN straight on.
run() {
	case_name=$1
	svc=$1
	shift
	start=$(date +%s)
	LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_DEBUGLEVEL=2 \
		PAM_WRAPPER_SERVICE_DIR="$tmp/svc" \
		setsid -w ${guard:+timeout -s KILL "$guard"} \
		pamtester -v -I tty=:0 "$@" "$svc" root authenticate >"$tmp/out/$svc.log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))
}

# simple NAME ARGS...: the usual one-line stack with helper NAME.
simple() {
	name=$1
	shift
	stack "$name" "auth required $module helper=$tmp/helpers/$name print_dir=$tmp/prints debug $*"
}

saw() { grep -qF -- "$1" "$tmp/out/$case_name.log"; }
expect_saw() {
	if saw "$1"; then ok; else fail "output lacks '$1'"; fi
}
expect_not_saw() {
	if saw "$1"; then fail "output has '$1'"; else ok; fi
}
# The PAM code, by pamtester's pam_strerror text; and that our stack ran at all
# (pam_wrapper silently falls back to /etc/pam.d when it cannot copy the dir).
expect_code() {
	case $1 in
	success) want=$MSG_SUCCESS want_rc=0 ;;
	unavail) want=$MSG_UNAVAIL want_rc=1 ;;
	maxtries) want=$MSG_MAXTRIES want_rc=1 ;;
	user_unknown) want=$MSG_USER_UNKNOWN want_rc=1 ;;
	esac
	if [ "$rc" -eq "$want_rc" ] && saw "$want"; then ok; else
		fail "want $1 (rc $want_rc), got rc $rc:" "$tmp/out/$case_name.log"
	fi
}
expect_ran() {
	if [ -e "$tmp/out/$1.ran" ]; then ok; else fail "helper $1 did not run"; fi
}
expect_not_ran() {
	if [ -e "$tmp/out/$1.ran" ]; then fail "helper $1 ran"; else ok; fi
}
# The helper's pid is gone (killed and reaped, not left running).
# child_gone NAME: the child the helper recorded is not running (an orphan's zombie counts as gone).
child_gone() {
	cpid=$(cat "$tmp/out/$1.child" 2>/dev/null)
	state=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$cpid/stat" 2>/dev/null)
	if [ -n "$cpid" ] && { [ -z "$state" ] || [ "$state" = Z ]; }; then ok; else
		fail "the helper's child ($cpid) still runs"
		kill -9 "$cpid" 2>/dev/null
	fi
}
expect_gone() {
	pid=$(cat "$tmp/out/$1.ran" 2>/dev/null)
	if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then ok; else fail "helper $1 ($pid) still runs"; fi
}

# --- the helpers ---------------------------------------------------------------

helper success <<EOF2
/bin/cat > $tmp/out/success.request
/usr/bin/tr '\0' '\n' < /proc/\$\$/environ > $tmp/out/success.env
/bin/ls /proc/self/fd > $tmp/out/success.fds
echo "touchauth 1"
echo "info Place your finger on the sensor"
echo "result success"
# Last, and by exec: dash blocks every signal around its own forks, so a child reading
# /proc/\$\$/status can catch the shell inside that window (seen in CI). grep, exec'd
# in place of the shell, reads its own mask: the one the module gave the helper.
exec /bin/grep -E '^Sig(Blk|Ign):' /proc/self/status > $tmp/out/success.sig
EOF2

helper failed <<'EOF2'
/bin/cat >/dev/null
echo "touchauth 1"
echo "info Place your finger on the sensor"
echo "error Try Again"
echo "error Try Again"
echo "result authenticationFailed"
EOF2

helper fallback <<'EOF2'
/bin/cat >/dev/null
printf 'touchauth 1\nresult userFallback\n'
EOF2

helper exit1 <<'EOF2'
/bin/cat >/dev/null
printf 'touchauth 1\ninfo almost\nresult success\n'
exit 1
EOF2

helper hang <<EOF2
/bin/cat >/dev/null
echo "touchauth 1"
echo "info Place your finger on the sensor"
exec /bin/sleep 1000
EOF2

helper closes_and_hangs <<'EOF2'
/bin/cat >/dev/null
printf 'touchauth 1\nresult success\n'
exec >&-
exec /bin/sleep 1000
EOF2

# Hangs in a child (the shell waits for it): the module must end the child too.
helper hangs_in_child <<EOF2
/bin/cat >/dev/null
echo "touchauth 1"
echo "info Place your finger on the sensor"
/bin/sleep 1000 &
echo \$! > $tmp/out/hangs_in_child.child
wait
EOF2

# Succeeds and exits, leaving a child behind (not on our pipe): it must not outlive the prompt.
helper leaves_child <<EOF2
/bin/cat >/dev/null
/bin/sleep 1000 >/dev/null 2>&1 &
echo \$! > $tmp/out/leaves_child.child
printf 'touchauth 1\nresult success\n'
EOF2

helper garbage <<'EOF2'
/bin/cat >/dev/null
echo "Segmentation fault"
echo "result success"
EOF2

helper crash <<'EOF2'
/bin/cat >/dev/null
printf 'touchauth 1\ninfo about to crash\n'
kill -SEGV $$
EOF2

helper after_result <<'EOF2'
/bin/cat >/dev/null
printf 'touchauth 1\nresult success\ninfo one more thing\n'
EOF2

helper no_result <<'EOF2'
/bin/cat >/dev/null
printf 'touchauth 1\ninfo hello\n'
EOF2

helper flood <<'EOF2'
/bin/cat >/dev/null
echo "touchauth 1"
exec /usr/bin/yes "info flood"
EOF2

helper no_read <<'EOF2'
exit 0
EOF2

helper writable <<'EOF2'
printf 'touchauth 1\nresult success\n'
EOF2
chmod 0775 "$tmp/helpers/writable"

helper not_root <<'EOF2'
printf 'touchauth 1\nresult success\n'
EOF2
chown 65534 "$tmp/helpers/not_root"

helper skipped <<'EOF2'
printf 'touchauth 1\nresult success\n'
EOF2

# Lists the children of the process running the module: only itself.
helper zombie_check <<EOF2
/bin/cat >/dev/null
echo \$\$ > $tmp/out/zombie_check.self
/bin/cat /proc/\$PPID/task/*/children > $tmp/out/zombie_check.children
printf 'touchauth 1\nresult success\n'
EOF2

# --- the cases -----------------------------------------------------------------

simple success
(
	trap '' INT # the child must reset an inherited SIG_IGN
	LANG=C.UTF-8 LANGUAGE=zh_CN:en LC_ALL='bad value' run success 9</etc/passwd
	echo "$rc $secs" >"$tmp/out/success.rc"
)
read -r rc secs <"$tmp/out/success.rc"
case_name=success
expect_code success
expect_saw "Place your finger on the sensor"
expect_saw "SYSLOG(5): user root, service success: success, strikes -"
expect_saw "SYSLOG(7): outcome success -> PAM_SUCCESS"
# (pamtester's PAM_TTY ":0" is the request's display: docs/PROTOCOL.md)
printf 'touchauth-request 1\nuser root\nservice success\nfallback none\ndisplay :0\narg helper=%s\narg print_dir=%s\narg debug\nend\n' \
	"$tmp/helpers/success" "$tmp/prints" >"$tmp/out/success.request.want"
if cmp -s "$tmp/out/success.request" "$tmp/out/success.request.want"; then ok; else
	fail "request differs:"
	diff "$tmp/out/success.request.want" "$tmp/out/success.request"
fi
if [ "$(sort "$tmp/out/success.env" | tr '\n' ' ')" = "LANG=C.UTF-8 LANGUAGE=zh_CN:en " ]; then ok; else
	fail "environment: $(tr '\n' ' ' <"$tmp/out/success.env")"
fi
# ls itself holds fd 3 (/proc/self/fd); the host's fd 9 must not be there.
if [ "$(tr '\n' ' ' <"$tmp/out/success.fds")" = "0 1 2 3 " ]; then ok; else
	fail "open fds: $(tr '\n' ' ' <"$tmp/out/success.fds")"
fi
if [ "$(tr -d '\t' <"$tmp/out/success.sig" | tr '\n' ' ')" = \
	"SigBlk:0000000000000000 SigIgn:0000000000000000 " ]; then ok; else
	fail "signals: $(tr '\n' ' ' <"$tmp/out/success.sig")"
fi

simple failed
run failed
expect_code maxtries
expect_saw "Place your finger on the sensor"
expect_saw "Try Again"
expect_saw "SYSLOG(5): user root, service failed: authenticationFailed, strikes -"
expect_saw "outcome authenticationFailed -> PAM_MAXTRIES"

simple fallback
run fallback
expect_code unavail
expect_saw "SYSLOG(6): user root, service fallback: userFallback, strikes -"

simple exit1
run exit1
expect_code unavail
expect_saw "almost"
expect_saw "helper exit status 1"
expect_saw "user root, service exit1: systemCancel, strikes -"

# The deadline ends it: the module says so, its audit line says systemCancel, and the helper,
# killed by the module (nothing else logged about its end), is gone.
guard=${E2E_GUARD_SECONDS:-60}
simple hang timeout=1
run hang
expect_code unavail
expect_saw "Place your finger on the sensor"
expect_saw "SYSLOG(3): helper timed out"
expect_not_saw "helper timed out after closing its output"
expect_not_saw "helper killed by signal"
expect_saw "user root, service hang: systemCancel, strikes -"
expect_gone hang
echo "hang: returned after ${secs} s (timeout=1, deadline 4 s)"

simple closes_and_hangs timeout=1
run closes_and_hangs
expect_code unavail
expect_saw "SYSLOG(3): helper timed out after closing its output; killing it"
expect_saw "user root, service closes_and_hangs: systemCancel, strikes -"
expect_gone closes_and_hangs
echo "closes_and_hangs: returned after ${secs} s (timeout=1, deadline 4 s)"

simple hangs_in_child timeout=1
run hangs_in_child
expect_code unavail
expect_saw "helper timed out"
expect_gone hangs_in_child
child_gone hangs_in_child
guard=

simple leaves_child
run leaves_child
expect_code success
child_gone leaves_child

# The host killed with SIGKILL, when no code of the module can run: the helper goes with it
# (PR_SET_PDEATHSIG), instead of waiting for a touch nobody asked for.
simple hang timeout=30
case_name=host_killed
rm -f "$tmp/out/hang.ran"
LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$tmp/svc" \
	pamtester -v -I tty=:0 hang root authenticate >"$tmp/out/host_killed.log" 2>&1 </dev/null &
host=$!
i=0
while [ ! -s "$tmp/out/hang.ran" ] && [ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -9 "$host"
wait "$host" 2>/dev/null
hpid=$(cat "$tmp/out/hang.ran" 2>/dev/null)
i=0
while [ -n "$hpid" ] && [ -e "/proc/$hpid" ] && [ "$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$hpid/stat" 2>/dev/null)" != Z ] && [ $i -lt 200 ]; do
	sleep 0.01
	i=$((i + 1))
done
state=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$hpid/stat" 2>/dev/null)
if [ -n "$hpid" ] && { [ -z "$state" ] || [ "$state" = Z ]; }; then ok; else
	fail "the helper ($hpid) outlived its host killed with SIGKILL"
	kill -9 "$hpid" 2>/dev/null
fi
for d in /tmp/pam.?; do [ -e "$d/hang" ] && rm -rf "$d"; done
simple hang timeout=1

simple garbage
run garbage
expect_code unavail
expect_saw "helper protocol error: missing header"
expect_not_saw "$MSG_SUCCESS"

simple crash
run crash
expect_code unavail
expect_saw "about to crash"
expect_saw "helper killed by signal 11"

simple after_result
run after_result
expect_code unavail
expect_saw "helper protocol error: data after result"

simple no_result
run no_result
expect_code unavail
expect_saw "hello"
expect_saw "helper protocol error: no result"

simple flood
run flood
expect_code unavail
expect_saw "helper protocol error: too many lines"
expect_gone flood

# The helper may exit before the request is written: EPIPE, never SIGPIPE.
simple no_read a=1 b=2 c=3
i=0
while [ $i -lt 5 ]; do
	run no_read
	expect_code unavail
	i=$((i + 1))
done

stack missing "auth required $module helper=$tmp/helpers/does-not-exist print_dir=$tmp/prints"
run missing
expect_code unavail
expect_saw "does-not-exist: No such file or directory"

simple writable
run writable
expect_code unavail
expect_saw "is group- or other-writable"
expect_not_ran writable

simple not_root
run not_root
expect_code unavail
expect_saw "is not owned by root"
expect_not_ran not_root

stack remote "auth required $module helper=$tmp/helpers/skipped print_dir=$tmp/prints debug"
run remote -I rhost=192.0.2.7
expect_code unavail
expect_saw "SYSLOG(7): remote session"
expect_not_ran skipped

stack no_prints "auth required $module helper=$tmp/helpers/skipped print_dir=$tmp/no-prints debug"
run no_prints
expect_code unavail
expect_saw "SYSLOG(7): no enrolled prints"
expect_not_ran skipped

stack bad_arg "auth required $module helper=$tmp/helpers/skipped print_dir=$tmp/prints max_tries=0"
run bad_arg
expect_code unavail
expect_saw "invalid module argument max_tries=0"
expect_not_ran skipped

stack unknown_arg "auth required $module helper=$tmp/helpers/success print_dir=$tmp/prints colour=blue"
run unknown_arg
expect_code success
expect_saw "SYSLOG(4): unknown key colour in module arguments"

printf 'helper = %s\nprint_dir = %s\ntimeout = 5\n' "$tmp/helpers/success" "$tmp/prints" >"$tmp/good.conf"
stack config_file "auth required $module config=$tmp/good.conf"
run config_file
expect_code success
expect_saw "Place your finger on the sensor"

printf 'helper = %s\nprint_dir = %s\ntimeout = soon\n' "$tmp/helpers/skipped" "$tmp/prints" >"$tmp/bad.conf"
stack bad_config "auth required $module config=$tmp/bad.conf"
run bad_config
expect_code unavail
expect_saw "invalid timeout in $tmp/bad.conf"
expect_not_ran skipped

stack missing_config "auth required $module config=$tmp/nope.conf helper=$tmp/helpers/skipped print_dir=$tmp/prints"
run missing_config
expect_code unavail
expect_saw "cannot open $tmp/nope.conf"
expect_not_ran skipped

case_name=unknown_user
stack unknown_user "auth required $module helper=$tmp/helpers/skipped print_dir=$tmp/prints"
LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_DEBUGLEVEL=2 PAM_WRAPPER_SERVICE_DIR="$tmp/svc" \
	pamtester -v unknown_user no-such-user-touchauth authenticate >"$tmp/out/unknown_user.log" 2>&1 </dev/null
rc=$?
expect_code user_unknown
expect_not_ran skipped

# No zombie: after a helper was killed at the deadline, the next module
# instance's helper is the only child of the process.
stack zombie \
	"auth optional $module helper=$tmp/helpers/hang print_dir=$tmp/prints timeout=1" \
	"auth required $module helper=$tmp/helpers/zombie_check print_dir=$tmp/prints"
rm -f "$tmp/out/hang.ran"
guard=${E2E_GUARD_SECONDS:-60}
run zombie
guard=
expect_code success
if [ "$(tr -d ' \n' <"$tmp/out/zombie_check.children")" = "$(cat "$tmp/out/zombie_check.self")" ]; then ok; else
	fail "children of the PAM process: $(cat "$tmp/out/zombie_check.children")"
fi

for c in success hang; do
	case_name=valgrind-$c
	if ! command -v valgrind >/dev/null; then
		fail "valgrind is not installed"
		continue
	fi
	LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$tmp/svc" \
		PAM_WRAPPER_DISABLE_DEEPBIND=1 \
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		pamtester -v -I tty=:0 "$c" root authenticate >"$tmp/out/$case_name.log" 2>&1 </dev/null
	rc=$?
	# Under valgrind pam_wrapper's destructor does not remove its copy of
	# the service dir; remove the ones whose pid file names this run.
	for pid in $(sed -n 's/^PWRAP_[A-Z]*\[[^(]*(\([0-9]*\))\].*/\1/p' \
		"$tmp/out/$case_name.log" | sort -u); do
		for d in /tmp/pam.?; do
			[ "$(cat "$d/pid" 2>/dev/null)" = "$pid" ] && rm -rf "$d"
		done
	done
	if [ "$rc" -eq 99 ] || grep -q '==[0-9]*== ' "$tmp/out/$case_name.log"; then
		fail "valgrind reported errors:"
		grep '==[0-9]*==' "$tmp/out/$case_name.log"
	elif ! grep -q "pamtester: performing operation - authenticate" "$tmp/out/$case_name.log"; then
		# (control) pamtester really ran under valgrind, as far as the module
		fail "pamtester did not run under valgrind (exit $rc):"
		cat "$tmp/out/$case_name.log"
	else
		ok
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
