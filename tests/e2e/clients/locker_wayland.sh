# SPDX-License-Identifier: Apache-2.0
# The Wayland kit: Debian 12's real sway (1.7, wlroots 0.15) on its headless backend with the
# pixman renderer (no GPU, no /dev/dri, no logind, seatd or D-Bus), the real swaylock (1.7.2)
# on it as a test user, keys sent with wtype (virtual-keyboard protocol), the screen read
# back with grim (screencopy). See NOTES.md, "swaylock under headless sway".
# Packages: sway swaylock wtype grim (gui_packages in locker_x11.sh installs them quietly).
# shellcheck shell=bash

# sway 1.7 refuses to run as root ("Unable to drop root ... refusing to start": it checks
# that setuid(0) fails), so the compositor runs as a user too: the locker's own, as in a real
# session. Root still talks to it (swaymsg, wtype, grim) through the sockets, which root may
# open whatever their mode.
WL_DIR="" WL_RUN="" SWAY_PID="" SWAYLOCK_PID="" SWAYLOCK_LOG=""
WL_DISPLAY="" SWAYSOCK=""
# The lock screen's colour (swaylock -c), which nothing else on the screen has: the screen's
# corner turning this colour is the proof that the locker's surface is up. sway's own
# background here is 3f3f3f.
SWAYLOCK_COLOR=336699
# The output's size: the indicator ring (radius 50, thickness 10: swaylock's defaults) is at
# its middle.
WL_WIDTH=1024 WL_HEIGHT=768

# wl_ms: milliseconds, for the bounded waits.
wl_ms() { echo $(($(date +%s%N) / 1000000)); }

# wl_as USER: WL_AS, the command words that run what follows them as USER (its groups too)
# with a clean environment naming the compositor (XDG_RUNTIME_DIR as a session has it: the
# user's own 0700 directory). An array, not a function: `func ... &` would fork a subshell,
# and $! would be that subshell's pid, not the program's (killing it leaves the program up).
WL_AS=()
wl_as() {
    local user=$1 home
    home=$(getent passwd "$user" | cut -d: -f6)
    WL_AS=(setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups
        env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="${home:-/}" USER="$user" LOGNAME="$user"
        XDG_RUNTIME_DIR="$WL_RUN")
    [ -z "$WL_DISPLAY" ] || WL_AS+=(WAYLAND_DISPLAY="$WL_DISPLAY")
}

# sway_start DIR USER: headless sway as USER in the background (SWAY_PID; its log
# DIR/sway.log, with its debug lines when SWAY_DEBUG is set), its runtime directory
# DIR/wl-run (USER's, 0700). DIR must be enterable by USER (0755, as a test's work
# directory). Waits (10 s at most) until sway answers `swaymsg -t get_outputs` with the output
# HEADLESS-1; sets WL_DISPLAY (the socket's path: an absolute WAYLAND_DISPLAY works with
# libwayland 1.21) and SWAYSOCK; then starts wl_keeper.
sway_start() {
    local dir=$1 user=$2 deadline s
    WL_DIR=$dir WL_RUN=$dir/wl-run WL_DISPLAY="" SWAYSOCK=""
    if ! setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups test -x "$dir"; then
        echo "sway_start: $user cannot enter $dir" >&2; return 1
    fi
    rm -rf "$WL_RUN"
    install -d -m 0700 -o "$user" -g "$(id -g "$user")" "$WL_RUN"
    # No bar, no Xwayland (not installed: sway would log an error for it), a fixed size.
    printf '%s\n' "output HEADLESS-1 resolution ${WL_WIDTH}x$WL_HEIGHT" "xwayland disable" > "$dir/sway.conf"
    chmod 0644 "$dir/sway.conf"
    # headless: no DRM, no libinput, no session (wlroots opens no seat for it); pixman: the
    # GLES2 renderer needs a render node (wlroots 0.15 has no Vulkan one in Debian).
    wl_as "$user"
    "${WL_AS[@]}" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
        sway ${SWAY_DEBUG:+-d} -c "$dir/sway.conf" > "$dir/sway.log" 2>&1 &
    SWAY_PID=$!
    deadline=$(($(wl_ms) + 10000))
    until swaymsg_ok; do
        if ! kill -0 "$SWAY_PID" 2> /dev/null; then
            echo "sway_start: sway ended: $(tail -3 "$dir/sway.log")" >&2; return 1
        fi
        [ "$(wl_ms)" -lt "$deadline" ] || { echo "sway_start: no answer from sway's socket in 10 s" >&2; return 1; }
        sleep 0.05
    done
    # The display socket is made before the IPC one; the run directory holds sway's only.
    for s in "$WL_RUN"/wayland-*; do [ -S "$s" ] && WL_DISPLAY=$s; done
    [ -n "$WL_DISPLAY" ] || { echo "sway_start: no wayland socket in $WL_RUN" >&2; return 1; }
    wl_keeper
}

# wl_keeper: a virtual keyboard held for sway's whole life (WL_KEEPER_PID: a wtype that only
# sleeps, 24 h). Headless sway has no keyboard of its own, so without it each wtype's keyboard
# would be the seat's only one: its arrival turns the seat's keyboard capability on, swaylock
# then asks for a new wl_keyboard, and the keys wtype sends before that request reaches sway
# are dropped (measured without the keeper: a lone `wtype -k Return` lost 6 of 15 times,
# "secret\n" in one call arrived as "ecret" 5 of 15). Waits (5 s at most) until sway lists it.
WL_KEEPER_PID=""
wl_keeper() {
    local sleeps=() _ deadline
    for _ in $(seq 24); do sleeps+=(-s 3600000); done  # wtype's usleep takes 71 min at most
    # It presses and releases Shift first: that uploads its keymap. A keyboard with none (format
    # 0) makes Debian 13's swaylock 1.8 abort at start ("Unknown keymap format 0, aborting")
    # once the keeper is the seat's only keyboard; sway 1.7's swaylock let it pass.
    WAYLAND_DISPLAY=$WL_DISPLAY wtype -k Shift_L "${sleeps[@]}" > /dev/null 2>&1 &
    WL_KEEPER_PID=$!
    deadline=$(($(wl_ms) + 5000))
    until SWAYSOCK=$SWAYSOCK timeout 5 swaymsg -t get_inputs 2> /dev/null | grep -q '"type": "keyboard"'; do
        [ "$(wl_ms)" -lt "$deadline" ] || { echo "wl_keeper: sway lists no keyboard after 5 s" >&2; return 1; }
        sleep 0.05
    done
}
# wl_keeper_renew: the keeper ended and started again (waits until sway lists none, then one).
wl_keeper_renew() {
    local deadline
    if [ -n "$WL_KEEPER_PID" ]; then
        kill "$WL_KEEPER_PID" 2> /dev/null; wait "$WL_KEEPER_PID" 2> /dev/null; WL_KEEPER_PID=""
    fi
    deadline=$(($(wl_ms) + 5000))
    while SWAYSOCK=$SWAYSOCK timeout 5 swaymsg -t get_inputs 2> /dev/null | grep -q '"type": "keyboard"'; do
        [ "$(wl_ms)" -lt "$deadline" ] || { echo "wl_keeper_renew: sway still lists a keyboard after 5 s" >&2; return 1; }
        sleep 0.02
    done
    wl_keeper
}
# swaymsg_ok: sway's IPC socket is there and lists HEADLESS-1 (sets SWAYSOCK).
swaymsg_ok() {
    local s
    for s in "$WL_RUN"/sway-ipc.*.sock; do [ -S "$s" ] && SWAYSOCK=$s; done
    [ -n "$SWAYSOCK" ] || return 1
    SWAYSOCK=$SWAYSOCK timeout 5 swaymsg -t get_outputs 2> /dev/null | grep -q '"HEADLESS-1"'
}

# sway_stop: ends swaylock (if still up), the keeper and sway, each waited for (5 s at most).
sway_stop() {
    swaylock_stop
    if [ -n "$WL_KEEPER_PID" ]; then
        kill "$WL_KEEPER_PID" 2> /dev/null; wait "$WL_KEEPER_PID" 2> /dev/null; WL_KEEPER_PID=""
    fi
    [ -n "$SWAY_PID" ] || return 0
    kill "$SWAY_PID" 2> /dev/null
    wl_wait_pid "$SWAY_PID" 5 || { kill -KILL "$SWAY_PID" 2> /dev/null; wait "$SWAY_PID" 2> /dev/null; }
    SWAY_PID=""
}
# swaylock_stop: ends a swaylock still up (SIGTERM: it exits at once, status 143).
swaylock_stop() {
    [ -n "$SWAYLOCK_PID" ] || return 0
    kill "$SWAYLOCK_PID" 2> /dev/null
    wl_wait_pid "$SWAYLOCK_PID" 5 || { kill -KILL "$SWAYLOCK_PID" 2> /dev/null; wait "$SWAYLOCK_PID" 2> /dev/null; }
    SWAYLOCK_PID=""
}

# wl_wait_pid PID SECONDS: until our child PID has ended (WL_RC: its status), or 1 when it is
# still running then. bash reaps its children as they end and keeps the status for `wait`, so
# `kill -0` fails as soon as it is gone (`tail --pid` would look once a second). Not in a
# $(...): a subshell cannot wait for its parent's child.
WL_RC=""
wl_wait_pid() {
    local pid=$1 deadline
    deadline=$(($(wl_ms) + $2 * 1000))
    while kill -0 "$pid" 2> /dev/null; do
        [ "$(wl_ms)" -lt "$deadline" ] || return 1
        sleep 0.02
    done
    WL_RC=0
    wait "$pid" 2> /dev/null || WL_RC=$?
}

# swaylock_start USER [ARGS...]: swaylock as USER (PAM runs as the user: the service
# `swaylock`, no setuid in Debian), with debug output in SWAYLOCK_LOG ($WL_DIR/swaylock.log,
# new each time), the background SWAYLOCK_COLOR. Waits (10 s at most) until the screen is
# locked: its corner shows that colour (swaylock takes the input inhibitor before it makes
# its surfaces, and sway gives the keyboard to the surface as it maps it). First, until the
# last locker's colour is gone from the screen (sway repaints once it has seen that client
# go): else a frame of the old lock could pass for the new one. Not -f: the daemon's status
# would be lost. ARGS must not change the colour (-c) nor add an image (-i).
# WL_PREFIX: command words before it (a suite's namespace and session: each must exec, so that
# SWAYLOCK_PID is swaylock's).
WL_PREFIX=()
swaylock_start() {
    local user=$1
    shift
    if ! wait_unlocked 5; then
        echo "swaylock_start: the screen still shows a lock (${SWAYLOCK_COLOR}) after 5 s" >&2
        return 1
    fi
    # The seat's keyboard must have a keymap when swaylock binds it: sway sets the seat's
    # keyboard to none when the wtype that typed last goes away, and Debian 13's swaylock 1.8
    # aborts on a keyboard with no keymap ("Unknown keymap format 0, aborting"). A new keeper,
    # whose Shift makes it the seat's keyboard, first (the old one is idle: ending it changes
    # nothing).
    wl_keeper_renew || return 1
    SWAYLOCK_LOG=$WL_DIR/swaylock.log
    : > "$SWAYLOCK_LOG"
    wl_as "$user"
    "${WL_PREFIX[@]}" "${WL_AS[@]}" swaylock -d -c "$SWAYLOCK_COLOR" "$@" >> "$SWAYLOCK_LOG" 2>&1 &
    SWAYLOCK_PID=$!
    if ! wait_locked 10; then
        echo "swaylock_start: the screen did not turn $SWAYLOCK_COLOR in 10 s: $(tail -3 "$SWAYLOCK_LOG")" >&2
        return 1
    fi
}

# wl_pixel X Y: the colour at X,Y on the screen, as rrggbb (grim's PPM: the last 3 bytes).
wl_pixel() {
    WAYLAND_DISPLAY=$WL_DISPLAY timeout 5 grim -g "$1,$2 1x1" -t ppm - 2> /dev/null |
        tail -c 3 | od -An -tx1 | tr -d ' \n'
}
# wait_locked SECONDS / wait_unlocked SECONDS: until the screen's corner is / is no longer the
# lock screen's colour.
wait_locked() { wl_wait_pixel 0 0 "$SWAYLOCK_COLOR" "$1"; }
wait_unlocked() { wl_wait_pixel 0 0 "!$SWAYLOCK_COLOR" "$1"; }
# wl_wait_pixel X Y [!]RRGGBB SECONDS: until the pixel is (or, with !, is not) that colour.
wl_wait_pixel() {
    local want=$3 deadline p
    deadline=$(($(wl_ms) + $4 * 1000))
    while :; do
        p=$(wl_pixel "$1" "$2")
        if [ "${want#!}" != "$want" ]; then [ -n "$p" ] && [ "$p" != "${want#!}" ] && return 0
        else [ "$p" = "$want" ] && return 0; fi
        [ "$(wl_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

# swaylock_ring: what the indicator ring shows, read at its top (swaylock's default colours):
# verifying (PAM runs; keys typed now are dropped), wrong (the verdict was a failure; swaylock
# takes keys again), input (typing: the ring, or the key's highlight arc that lands there at
# random), cleared, none (idle: no ring), or the raw colour.
swaylock_ring() {
    local p
    p=$(wl_pixel $((WL_WIDTH / 2)) $((WL_HEIGHT / 2 - 50)))
    case $p in
        3300ff) echo verifying ;; 7d3300) echo wrong ;; 337d00 | 33db00 | db3300) echo input ;;
        e5a445) echo cleared ;; "$SWAYLOCK_COLOR") echo none ;; *) echo "${p:-unreadable}" ;;
    esac
}
# wait_ring STATE SECONDS: until swaylock_ring says STATE. "wrong" is the event to wait for
# before typing again after a failure: swaylock ignores keys while verifying, and its PAM
# child logs the failure just before telling the parent.
wait_ring() {
    local deadline
    deadline=$(($(wl_ms) + $2 * 1000))
    until [ "$(swaylock_ring)" = "$1" ]; do
        [ "$(wl_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

# Keys reach swaylock only while the seat keeps a keyboard: see wl_keeper.
# wl_wtype ARGS...: wtype ARGS, then a new keeper: when this wtype's keyboard goes away sway
# leaves the seat with no keyboard, and the next virtual keyboard would become the seat's before
# it has a keymap: Debian 13's swaylock 1.8 aborts on that ("Unknown keymap format 0"). The
# keeper's Shift goes to swaylock too (a modifier alone: no input, and dropped while verifying).
wl_wtype() {
    local rc=0
    WAYLAND_DISPLAY=$WL_DISPLAY timeout 5 wtype "$@" || rc=$?
    wl_keeper_renew || return 1
    return $rc
}
# wl_type TEXT: types TEXT ("--": a TEXT starting with "-" is text, not an option).
wl_type() { wl_wtype -- "$1"; }
# wl_enter TEXT: types TEXT and Return in one call (a newline is wtype's Return).
wl_enter() { wl_wtype -- "$1"$'\n'; }
# wl_key NAME: presses and releases the key NAME (an XKB keysym name: Return, Escape, BackSpace).
wl_key() { wl_wtype -k "$1"; }
# wl_shot FILE: a PNG of the whole screen (grim works while the screen is locked).
wl_shot() { WAYLAND_DISPLAY=$WL_DISPLAY timeout 5 grim "$1" 2> /dev/null; }

# wait_swaylock_exit SECONDS: until swaylock has ended; returns its status (0: PAM said yes),
# or 124 when it is still running then.
wait_swaylock_exit() {
    [ -n "$SWAYLOCK_PID" ] || return 127
    wl_wait_pid "$SWAYLOCK_PID" "$1" || return 124
    SWAYLOCK_PID=""
    return "$WL_RC"
}

# swaylock_said PATTERN: its debug output has a line matching PATTERN (grep -E). The lines:
# "Using wlr-layer-shell + wlr-input-inhibitor" (the protocol), "Prepared to authorize user
# U" (pam_start done, in its PAM child), "received pw check request" (Enter: PAM is called
# now), "pam_authenticate failed: invalid credentials" (PAM_AUTH_ERR; other codes have other
# words: swaylock keeps one PAM handle, and pam_unix says "maximum number of authentication
# tries exceeded" from the third failure on). Success logs nothing: swaylock exits 0.
swaylock_said() { grep -qE -- "$1" "$SWAYLOCK_LOG" 2> /dev/null; }
# swaylock_count PATTERN: how many lines match (a second attempt's verdict is the second).
swaylock_count() {
    local n
    n=$(grep -cE -- "$1" "$SWAYLOCK_LOG" 2> /dev/null)
    echo "${n:-0}"
}
# wait_swaylock_said PATTERN SECONDS [N]: until N lines (default 1) match.
wait_swaylock_said() {
    local deadline
    deadline=$(($(wl_ms) + $2 * 1000))
    until [ "$(swaylock_count "$1")" -ge "${3:-1}" ]; do
        [ "$(wl_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}
