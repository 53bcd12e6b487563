# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The fake logind of the end-to-end suites (sourced by lib.sh): systemd-logind's state as
# sd-login reads it, in a directory a suite binds over /run/systemd in its namespaces:
# system/ (sd_booted), seats/seat0, sessions/ID, users/UID. sd-login reads these files at each
# call, so a case rewrites them and the next call (the module's, polkitd's) sees the new state.
# No D-Bus: python-dbusmock's logind stands in on the bus where a client asks logind there
# (clients_gnome.sh). LOGIND is the directory (default $T/rs); the directory itself stays (it
# may be bind-mounted already), only what is in it changes.
# (An empty value leaves its key out: sd-login reads a key with an empty value as missing.)

# logind_none: logind not running (this VM's state): seats/, sessions/, users/ empty, no system/.
logind_none() {
    local d=${LOGIND:-$T/rs}
    mkdir -p "$d" && rm -rf "${d:?}/"* && mkdir -p "$d/seats" "$d/sessions" "$d/users" "$d/machines"
    chmod -R a+rX "$d"
}
_logind_write() {  # _logind_write FILE KEY=VALUE...: the lines whose value is not empty
    local file=$1 kv; shift
    for kv in "$@"; do [ -n "${kv#*=}" ] && printf '%s\n' "$kv"; done > "$file"
    chmod 0644 "$file"
}
# logind_session ID UID [KEY=VALUE...]: logind runs (system/) and UID has session ID: a local
# active tty session of class user on seat0, its scope session-ID.scope, unless a KEY=VALUE says
# otherwise (SEAT= leaves the seat out, SCOPE= the scope; VTNR, DISPLAY, REMOTE_HOST, SERVICE
# may be added). Also users/UID (SESSIONS=ID) where there is none yet (logind_user rewrites it).
logind_session() {
    local d=${LOGIND:-$T/rs} id=$1 uid=$2 a k; shift 2
    local -A kv=([UID]=$uid [USER]=$(id -un "$uid" 2>/dev/null || echo "u$uid") [ACTIVE]=1
                 [STATE]=active [REMOTE]=0 [TYPE]=tty [CLASS]=user [SEAT]=seat0 [SCOPE]=session-$id.scope)
    for a in "$@"; do kv[${a%%=*}]=${a#*=}; done
    mkdir -p "$d/system" "$d/sessions" "$d/users"
    local lines=()
    for k in UID USER ACTIVE STATE REMOTE TYPE CLASS SCOPE SEAT VTNR DISPLAY REMOTE_HOST SERVICE; do
        lines+=("$k=${kv[$k]:-}")
    done
    _logind_write "$d/sessions/$id" "${lines[@]}"
    [ -e "$d/users/$uid" ] || logind_user "$uid" "$id"
    chmod -R a+rX "$d"
}
# logind_seat0 ACTIVE ACTIVE_UID SESSIONS: seat0, its active session (empty: none) and its
# sessions (a space-separated list).
logind_seat0() {
    local d=${LOGIND:-$T/rs}
    mkdir -p "$d/system" "$d/seats"
    _logind_write "$d/seats/seat0" IS_SEAT0=1 CAN_MULTI_SESSION=1 CAN_TTY=1 CAN_GRAPHICAL=1 \
        "ACTIVE=$1" "ACTIVE_UID=$2" "SESSIONS=$3"
}
# logind_user UID SESSIONS [DISPLAY [STATE]]: users/UID, its sessions, the session that is its
# display (sd_uid_get_display) and its state (default active).
logind_user() {
    local d=${LOGIND:-$T/rs}
    mkdir -p "$d/users"
    _logind_write "$d/users/$1" "NAME=$(id -un "$1" 2>/dev/null || echo "u$1")" "STATE=${4:-active}" \
        "SESSIONS=$2" "DISPLAY=${3:-}"
}
# logind_front ID UID [KEY=VALUE...]: the usual whole picture: UID's session ID (as
# logind_session), in front on seat0, and UID's display (sessions of type x11 or wayland).
logind_front() {
    local id=$1 uid=$2 a type=tty
    logind_none
    logind_session "$@"
    for a in "${@:3}"; do [ "${a%%=*}" = TYPE ] && type=${a#*=}; done
    logind_seat0 "$id" "$uid" "$id"
    case $type in x11|wayland) logind_user "$uid" "$id" "$id" ;; *) logind_user "$uid" "$id" ;; esac
}
