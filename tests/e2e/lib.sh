# End-to-end test kit: real libpam under pam_wrapper, pamtester, the real pam_unix.so with a
# test user, libfprint's virtual_device driven over its socket. Root only (CI is root on a
# throwaway machine): it creates the user `touchauth-test` with a password.
# shellcheck shell=bash
set +e -uo pipefail  # tests go on past a failing check; each check counts
E2E=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$E2E/../.." && pwd)
HELPER="${HELPER:-$ROOT/.build/release/touchauth}"
MODULE="${MODULE:-$ROOT/pam/pam_touchauth.so}"
TUSER=touchauth-test
TPASS='correct horse 7'
NOPRINTS_USER=touchauth-noprints
PASSED=0
FAILED=0

T=$(mktemp -d /tmp/touchauth-e2e.XXXXXX)
chmod 0700 "$T"
SOCK="$T/vdev.sock"
trap 'rm -rf "$T"' EXIT

make_user() {  # make_user NAME PASSWORD: a local account pam_unix can check
    id "$1" >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin "$1"
    echo "$1:$2" | chpasswd
}

# write_config FILE [key=value...]: a root-owned config using the virtual sensor in $T.
write_config() {
    local file=$1; shift
    { echo "# written by the e2e tests"; echo "virtual_device = $SOCK"; echo "print_dir = $T/prints"
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
    "$HELPER" enroll --user "$1" --finger "$2" --config "$T/touchauth.conf" --replace > "$T/enroll.out" 2>&1
    local rc=$?
    wait
    return $rc
}

# (stdbuf -o0: pamtester's info lines go to stdout and its errors to stderr; unbuffered, the
# capture shows them in the order the user saw them.)
# pam SERVICE USER STDIN [vsensor commands...]: runs pamtester authenticate under pam_wrapper
# while the commands are sent to the sensor. PAM_ITEMS='-I rhost=...' sets PAM items. Sets RC, OUT (everything the user saw), SECONDS_TAKEN.
pam() {
    local svc=$1 user=$2 input=$3; shift 3
    rm -f "$SOCK"
    local sender=""
    if [ $# -gt 0 ]; then python3 "$E2E/vsensor.py" "$SOCK" "$@" > "$T/vsensor.out" 2>&1 & sender=$!; fi
    local start end
    start=$(date +%s.%N)
    printf '%s\n' "$input" | LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$T/pam.d" \
        timeout 60 stdbuf -o0 pamtester -v ${PAM_ITEMS:-} "$svc" "$user" authenticate > "$T/out" 2>&1
    RC=$?
    end=$(date +%s.%N)
    if [ -n "$sender" ]; then kill "$sender" 2>/dev/null; wait "$sender" 2>/dev/null; fi
    OUT=$(cat "$T/out")
    SECONDS_TAKEN=$(echo "$end - $start" | bc 2>/dev/null || python3 -c "print(round($end-$start,2))")
}

# check NAME CONDITION...: one assertion; prints the output seen when it fails.
check() {
    local name=$1; shift
    if "$@"; then
        PASSED=$((PASSED + 1)); echo "ok   - $name"
    else
        FAILED=$((FAILED + 1)); echo "FAIL - $name"; echo "$OUT" | sed 's/^/       | /'
    fi
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

summary() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}
