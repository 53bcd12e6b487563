# SPDX-License-Identifier: Apache-2.0
# End-to-end test kit: real libpam under pam_wrapper, pamtester, the real pam_unix.so with a
# test user, libfprint's virtual_device driven over its socket. Root only (CI is root on a
# throwaway machine): it creates the user `touchauth-test` with a password.
# shellcheck shell=bash
# Every suite runs in tests/e2e/sandbox.sh: the pieces of the host its rules read (the active
# VT, logind's /run/systemd, the cgroup tree, the lid, the environment) set to a fresh machine's
# values, whatever machine runs it. The suite starts again there (it has done nothing yet).
if [ "${TOUCHAUTH_SANDBOX:-}" != 1 ]; then
    exec "$(dirname "${BASH_SOURCE[0]}")/sandbox.sh" bash "$0" "$@"
fi
# One way to install, one list of packages: ensure_packages and the lists come from scripts/lib.sh.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
set +e -uo pipefail  # tests go on past a failing check; each check counts
E2E=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$E2E/../.." && pwd)
HELPER="${HELPER:-$ROOT/.build/release/touchauth}"
MODULE="${MODULE:-$ROOT/pam/pam_touchauth.so}"
# TOUCHAUTH_E2E_USER names another test user, for a second checkout's run beside this one
# (lockout.sh locks the user's password for a while: two runs must not share one user).
TUSER=${TOUCHAUTH_E2E_USER:-touchauth-test}
TPASS='correct horse 7'
NOPRINTS_USER=${TOUCHAUTH_E2E_USER:-touchauth}-noprints
PASSED=0
FAILED=0
# The module skips the sensor in an SSH session, and in a terminal whose stdin is a pipe: pam()
# runs pamtester without a controlling terminal (setsid), so these tests mean the same
# whoever runs them, from wherever.
unset SSH_CONNECTION SSH_CLIENT SSH_TTY

T=$(mktemp -d /tmp/touchauth-e2e.XXXXXX)
chmod 0700 "$T"
SOCK="$T/vdev.sock"
trap 'rm -rf "$T"' EXIT
# A signal ends the suite through its EXIT trap (whichever the suite sets), so what it started
# (socat on /dev/log, daemons) is stopped: a suite that mutate.sh stops as hung left its socat
# serving /dev/log before, for every later run.
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM

# cgroup2_dir: where the cgroup2 hierarchy is mounted (the unified one on a hybrid host), for the
# fake logind's session scopes; nothing and status 1 where there is none.
cgroup2_dir() {
    local d
    for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
        [ "$(stat -f -c %T "$d" 2>/dev/null)" = cgroup2fs ] && { echo "$d"; return 0; }
    done
    return 1
}

# run_dbus_dir: the mount point of the suites that run their own system bus (a tmpfs over
# /run/dbus): Debian 13's dbus makes it only when the daemon starts, which a test machine's
# policy-rc.d forbids. Made empty if missing (/run is a tmpfs: gone at the next boot).
# (/run/systemd is always there: the sandbox mounts its empty tmpfs on it.)
run_dbus_dir() { [ -d /run/dbus ] || mkdir -m 0755 /run/dbus; }

# vt_on_screen ttyN: the virtual console the machine shows (/sys/class/tty/tty0/active, the
# sandbox's file: "tty1" until a suite says otherwise), for the cases whose rule reads it.
vt_on_screen() { printf '%s\n' "$1" > /sys/class/tty/tty0/active; }

# mounts_at PATH...: what is mounted exactly at each PATH (a line each: target, source, type).
# A suite records it at its start and compares at its end: its own mounts stay in namespaces
# of its own, so the sandbox's (a tmpfs on /run/systemd) are all that may be there.
mounts_at() { local p; for p in "$@"; do findmnt -rn -o TARGET,SOURCE,FSTYPE "$p"; done; }

# The suites' one fake logind and one set of state helpers (set_state, fresh_state, field,
# strikes, armed, never_armed): tests/e2e/kit/. STATE: the state dir those helpers read.
STATE="$T/state"
source "$E2E/kit/logind.sh"
source "$E2E/kit/state.sh"

make_user() {  # make_user NAME PASSWORD: a local account pam_unix can check
    id "$1" >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin "$1"
    echo "$1:$2" | chpasswd
}

# write_config FILE [key=value...]: a root-owned config using the virtual sensor in $T.
# The test machines have no logind, and the suites about terminals need one to count there:
# terminal_without_logind = yes unless the arguments set it (presence.sh tests the default).
# No lid (lid_dir a directory that does not exist) unless the arguments set one: a laptop
# docked with its lid closed would otherwise leave the virtual readers, inside, unarmed.
write_config() {
    local file=$1 kv twl="yes" lid="$T/no-lid"; shift
    for kv in "$@"; do
        [ "${kv%%=*}" = terminal_without_logind ] && twl=""
        [ "${kv%%=*}" = lid_dir ] && lid=""
    done
    { echo "# written by the e2e tests"; echo "virtual_device = $SOCK"; echo "print_dir = $T/prints"
      [ -z "$twl" ] || echo "terminal_without_logind = $twl"
      [ -z "$lid" ] || echo "lid_dir = $lid"
      for kv in "$@"; do echo "${kv%%=*} = ${kv#*=}"; done; } > "$file"
    chmod 0644 "$file"
}

# service NAME AUTH-LINES...: a PAM service file in $T/pam.d (pam_wrapper reads it there).
service() {
    local name=$1; shift
    mkdir -p "$T/pam.d"
    { printf '%s\n' "$@"; echo "account required pam_permit.so"; } > "$T/pam.d/$name"
}

# enroll USER FINGER ID: `touchauth enroll` on the virtual sensor, 5 scans of identity ID.
enroll() {
    rm -f "$SOCK"
    python3 "$E2E/vsensor.py" "$SOCK" "SCAN $3" "SCAN $3" "SCAN $3" "SCAN $3" "SCAN $3" &
    local sender=$!
    "$HELPER" enroll --user "$1" --finger "$2" --config "$T/touchauth.conf" --replace > "$T/enroll.out" 2>&1
    local rc=$?
    wait "$sender"  # (only ours: a test may have other jobs running, e.g. syslog_start's)
    return $rc
}

# (pamtester's info lines go to stdout, buffered when it is a file, and its errors to
# stderr: checks look for lines, not their order; PAM_RUNNER="python3 $E2E/ptyout.py" keeps it.)
# pam SERVICE USER STDIN [vsensor commands...]: runs pamtester authenticate under pam_wrapper
# while the commands are sent to the sensor. PAM_ITEMS='-I rhost=...' sets PAM items,
# PAM_OPS the operations (default authenticate), PAM_RUNNER a command to run it through. Sets RC, OUT (everything the user saw), SECONDS_TAKEN.
pam() {
    local svc=$1 user=$2 input=$3; shift 3
    sensor_start "$@"
    # Someone must be able to answer (docs/POLICY.md#someone-must-be-able-to-answer): pamtester runs with no terminal, so it
    # stands for a client with a display (PAM_TTY ":0", as a display manager sets it) unless
    # PAM_NO_DISPLAY=1 (then nobody can answer, and the sensor is never offered).
    local display="-I tty=:0"
    [ "${PAM_NO_DISPLAY:-0}" = 1 ] && display=""
    local start end
    start=$(date +%s.%N)
    # LD_PRELOAD=libpam_wrapper.so for pamtester alone: with `stdbuf -o0` also preloaded,
    # every run left a /tmp/pam.X copy behind, and pam_wrapper has only ~62 of those before
    # PAM silently falls back to the real /etc/pam.d. (PAM_RUNNER=ptyout.py keeps the order.)
    printf '%s\n' "$input" | ${PAM_RUNNER:-} "${WRAPPED[@]}" \
        pamtester -v $display ${PAM_ITEMS:-} "$svc" "$user" ${PAM_OPS:-authenticate} > "$T/out" 2>&1
    RC=$?
    end=$(date +%s.%N)
    sensor_stop
    OUT=$(cat "$T/out")
    SECONDS_TAKEN=$(echo "$end - $start" | bc 2>/dev/null || python3 -c "print(round($end-$start,2))")
}
# drive SERVICE PASSWORD "OPS" [vsensor commands...]: clients/pamdrive.c (built on first use)
# runs OPS (auth, acct: any order, whatever each returns, on one handle, as sshd does) for
# DRIVE_USER (default $TUSER), as pam() runs pamtester (PAM_RUNNER, pam_wrapper, no terminal,
# PAM_TTY ":0"); DRIVE_DEBUG=1 adds the module's log lines. Sets RC, OUT.
drive() {
    local svc=$1 pw=$2 ops=$3; shift 3
    [ -x "$T/pamdrive" ] || gcc -O2 -Wall -o "$T/pamdrive" "$E2E/clients/pamdrive.c" -lpam || return 1
    sensor_start "$@"
    local debug=()
    [ "${DRIVE_DEBUG:-0}" = 1 ] && debug=(PAM_WRAPPER_DEBUGLEVEL=2)
    # shellcheck disable=SC2086  # OPS is a word list
    ${PAM_RUNNER:-} "${WRAPPED[@]}" "${debug[@]}" \
        "$T/pamdrive" -I tty=:0 "$svc" "${DRIVE_USER:-$TUSER}" "$pw" $ops < /dev/null > "$T/out" 2>&1
    RC=$?
    sensor_stop
    OUT=$(cat "$T/out")
}
# A PAM client's surroundings: no controlling terminal (setsid), a 60 s guard, pam_wrapper
# reading the services in $T/pam.d.
WRAPPED=(setsid -w timeout 60 env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 "PAM_WRAPPER_SERVICE_DIR=$T/pam.d")
# sensor_start [COMMANDS...]: vsensor.py sends COMMANDS to the virtual sensor in the background
# (no COMMANDS: no sender); sensor_stop ends it.
sensor_start() {
    rm -f "$SOCK"
    SENDER=""
    [ $# -gt 0 ] || return 0
    python3 "$E2E/vsensor.py" "$SOCK" "$@" > "$T/vsensor.out" 2>&1 &
    SENDER=$!
}
sensor_stop() {
    if [ -n "$SENDER" ]; then kill "$SENDER" 2>/dev/null; wait "$SENDER" 2>/dev/null; fi
    return 0
}

# check NAME CONDITION...: one assertion; prints the output seen when it fails. A NAME that
# starts with "(setup)" or "(cleanup)" is a step, not a check: it is not counted when it holds,
# and counts as a failure when it does not. TOUCHAUTH_FAIL_FAST=1 ends the suite at its first
# failure (status 1, no summary line). TOUCHAUTH_CHECK_FILTER (scripts/test.sh
# NAME:REGEX): a check whose name does not match is neither counted nor printed; its condition
# still runs (within a case that runs, the scenario stays the same for the checks that match).
check() {
    local name=$1; shift
    case $name in "(setup)"* | "(cleanup)"*) ;; *)
        if [ -n "${TOUCHAUTH_CHECK_FILTER:-}" ] && ! [[ $name =~ $TOUCHAUTH_CHECK_FILTER ]]; then
            "$@" > /dev/null 2>&1
            return 0
        fi ;;
    esac
    if "$@"; then
        case $name in
            "(setup)"* | "(cleanup)"*) echo "step - $name"; return 0 ;;
        esac
        PASSED=$((PASSED + 1)); echo "ok   - $name"
    else
        FAILED=$((FAILED + 1)); echo "FAIL - $name"; echo "$OUT" | sed 's/^/       | /'
        # scripts/mutate.sh: one failure is the verdict, the rest of the suite only costs time.
        # The suite's EXIT trap cleans up as after any other early exit.
        if [ -n "${TOUCHAUTH_FAIL_FAST:-}" ]; then echo "stopped at the first failure (TOUCHAUTH_FAIL_FAST)"; exit 1; fi
    fi
}
# case_ NAME FN [ARGS...]: one case: prints "# NAME", then runs FN ARGS with CASE=NAME. A case
# stands alone: it sets up what it needs (its state, its logind, its sensor, its services when
# only it uses them) on top of the suite's common setup, never from what an earlier case left.
# Under a filter (TOUCHAUTH_CHECK_FILTER) a case whose checks cannot match is skipped whole
# (none of its steps run): it runs when the filter matches NAME (then all its checks count), or
# a line of its text or a double-quoted string on one, which is where its check names are
# written (then the checks that match count). Its text: FN's and
# that of every function of the suite FN calls, through any depth (`declare -f`; $CASE there
# read as NAME, $1... as ARGS; lib.sh's own functions left out). A name made at run time of
# other variables ("$kind state -> ...", "$label: ...") is found by its literal part, or by the
# case's NAME: a loop gives each value a case of its own, with "$CASE" in its check names.
case_() {
    local name=$1 fn=$2; shift 2
    if [ -n "${TOUCHAUTH_CHECK_FILTER:-}" ] && ! [[ $name =~ $TOUCHAUTH_CHECK_FILTER ]]; then
        local body line s hit=0
        declare -F "$fn" > /dev/null || { echo "case_: no function $fn"; FAILED=$((FAILED + 1)); return 1; }
        body=$(case_text "$fn")
        body=${body//'${CASE}'/"$name"}; body=${body//'$CASE'/"$name"}
        local i=1 arg
        for arg in "$@"; do body=${body//"\${$i}"/"$arg"}; body=${body//"\$$i"/"$arg"}; i=$((i + 1)); done
        while IFS= read -r line && [ "$hit" = 0 ]; do
            if [[ $line =~ $TOUCHAUTH_CHECK_FILTER ]]; then hit=1; break; fi
            while IFS= read -r s; do
                [[ ${s:1:${#s}-2} =~ $TOUCHAUTH_CHECK_FILTER ]] && { hit=1; break; }
            done < <(grep -o '"[^"]*"' <<< "$line")
        done <<< "$body"
        [ "$hit" = 1 ] || return 0
    fi
    echo "# $name"
    if [ -n "${TOUCHAUTH_CHECK_FILTER:-}" ] && [[ $name =~ $TOUCHAUTH_CHECK_FILTER ]]; then
        TOUCHAUTH_CHECK_FILTER="" CASE=$name "$fn" "$@"  # picked by its name: every check of it
    else
        CASE=$name "$fn" "$@"
    fi
}
# case_text FN: FN's text and that of the suite's functions it calls (not lib.sh's: LIB_FUNCTIONS).
case_text() {
    local -A seen=()
    local todo=("$1") f w body
    while [ ${#todo[@]} -gt 0 ]; do
        f=${todo[0]}; todo=("${todo[@]:1}")
        [ -z "${seen[$f]:-}" ] || continue
        seen[$f]=1
        body=$(declare -f "$f") || continue
        printf '%s\n' "$body"
        for w in $(grep -oE '[A-Za-z_][A-Za-z0-9_]*' <<< "$body" | sort -u); do
            [ -z "${seen[$w]:-}" ] && [ -z "${LIB_FUNCTIONS[$w]:-}" ] && declare -F "$w" > /dev/null && todo+=("$w")
        done
    done
}
has() { grep -qF -- "$1" <<<"$OUT"; }
lacks() { ! grep -qF -- "$1" <<<"$OUT"; }
count_of() { grep -cF -- "$1" <<<"$OUT"; }
succeeded() { has "successfully authenticated"; }
no_password_prompt() { ! grep -q "^Password: " <<<"$OUT"; }  # pam_unix's prompt

# The messages pamtester prints for the PAM codes (pam_strerror).
MSG_MAXTRIES="Have exhausted maximum number of retries for service"
MSG_UNAVAIL="Authentication service cannot retrieve authentication info"
MSG_AUTHERR="Authentication failure"

# The helper logs with syslog(3) (LOG_AUTHPRIV), outside pam_wrapper's reach. syslog_start
# catches those lines in $T/syslog: where the machine has no /dev/log (CI), a socat listener
# serves there until syslog_stop; where it has one, run the command through `in_syslog_ns`,
# which bind-mounts our socket over /dev/log in a private mount namespace.
syslog_start() {
    : > "$T/syslog"
    SYSLOG_SOCK=/dev/log
    if [ -L /dev/log ] && [ ! -e /dev/log ]; then
        # systemd's link into /run/systemd/journal, left dangling by the sandbox's empty
        # /run/systemd: served where it points (the sandbox's tmpfs)
        SYSLOG_SOCK=$(readlink -m /dev/log)
        mkdir -p "${SYSLOG_SOCK%/*}"
    elif [ -e /dev/log ]; then
        SYSLOG_SOCK="$T/devlog"
    fi
    # (ended with the suite even when no trap runs: SIGKILL)
    setpriv --pdeathsig KILL socat -u UNIX-RECV:"$SYSLOG_SOCK",mode=666 OPEN:"$T/syslog",creat,append 2>/dev/null &
    SYSLOG_PID=$!
    # (a deadline of 10 s, not 1 s: a loaded machine may take longer to start socat)
    for _ in $(seq 1000); do [ -S "$SYSLOG_SOCK" ] && break; sleep 0.01; done
}
syslog_stop() {
    kill "$SYSLOG_PID" 2>/dev/null; wait "$SYSLOG_PID" 2>/dev/null
    case $SYSLOG_SOCK in "$T"/*) ;; *) rm -f "$SYSLOG_SOCK" ;; esac
    return 0
}
in_syslog_ns() {
    if [ "$SYSLOG_SOCK" = /dev/log ]; then "$@"; else
        unshare -m sh -c 'mount --bind "$0" /dev/log && exec "$@"' "$SYSLOG_SOCK" "$@"
    fi
}
# logged TEXT: the line reaches $T/syslog within 5 s. socat writes each datagram after the sender
# may have exited, so a grep at once can miss a line under load (a false failure seen in
# security.sh); `! logged` thereby waits 5 s for a line that must not come.
logged() {
    local deadline=$(($(date +%s%N) / 1000000 + 5000))
    until grep -qF -- "$1" "$T/syslog"; do
        [ "$(($(date +%s%N) / 1000000))" -lt "$deadline" ] || return 1
        sleep 0.02
    done
}

# The tmux kit of the suites that type into real terminals: each sets TMUX_SOCK and names its
# tmux session `t`. screen WINDOW: the window's text without blank lines ("" = the current one).
tm() { tmux -S "$TMUX_SOCK" "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
screen() { tm capture-pane -p -t "t:${1:-}" | sed '/^$/d'; }
# type_line WINDOW TEXT: TEXT typed (literally) into the window, then Enter.
type_line() { tm send-keys -t "t:$1" -l "$2"; tm send-keys -t "t:$1" Enter; }
# wait_for WINDOW TEXT [SECONDS]: until the window shows TEXT (tmux drops trailing blanks).
wait_for() {
    local deadline=$(($(now_ms) + ${3:-10} * 1000))
    until screen "$1" | grep -qF -- "$2"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        sleep 0.01
    done
}
# wait_file FILE [SECONDS]: until FILE is not empty.
wait_file() {
    local deadline=$(($(now_ms) + ${2:-15} * 1000))
    until [ -s "$1" ]; do [ "$(now_ms)" -lt "$deadline" ] || return 1; sleep 0.01; done
}

summary() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

# The functions above and the kit's: case_text leaves them out of a case's text.
declare -A LIB_FUNCTIONS=()
while read -r _ _ _lib_fn; do LIB_FUNCTIONS[$_lib_fn]=1; done < <(declare -F)
unset _lib_fn
