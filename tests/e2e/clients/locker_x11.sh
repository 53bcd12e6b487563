# SPDX-License-Identifier: Apache-2.0
# The X11 kit of clients_lockers.sh and clients_lightdm.sh: installing the clients without
# starting any service, an Xvfb display of the test's own, screenshots, and reading the screen
# back (tesseract) so that a check can say what the user saw.
# shellcheck shell=bash

# gui_packages PKG...: apt-get installs the missing ones with a policy-rc.d that exits 101, so
# that no display manager or service starts on the machine (lightdm's postinst would). A
# policy-rc.d that was there before is left alone; ours is removed at once.
gui_packages() {
    local missing=() p ours=0
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "# installing: ${missing[*]}"
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod 0755 /usr/sbin/policy-rc.d
        ours=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq > /dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
        --no-install-recommends "${missing[@]}" > /dev/null 2>&1
    local rc=$?
    [ "$ours" = 1 ] && rm -f /usr/sbin/policy-rc.d
    return $rc
}

# free_display FIRST: the first display number from FIRST on with no X server (lock file or
# socket); prints it.
free_display() {
    local n=$1
    while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
    echo "$n"
}

# x_start NUMBER AUTHFILE LOG: Xvfb on :NUMBER with a fresh cookie in AUTHFILE (0644: the test
# users' clients read it); sets XPID. Waits (5 s at most) until it answers. -noreset: an X server
# resets when its last client leaves, and a client connecting meanwhile is refused ("i3lock:
# Could not connect to X11" after the last locker or a probe had closed its connection).
x_start() {
    local n=$1 auth=$2 log=$3
    rm -f "$auth"; : > "$auth"
    xauth -q -f "$auth" add ":$n" . "$(mcookie)"
    chmod 0644 "$auth"
    Xvfb ":$n" -auth "$auth" -screen 0 1024x768x24 -nolisten tcp -noreset > "$log" 2>&1 &
    XPID=$!
    local _
    for _ in $(seq 100); do
        DISPLAY=":$n" XAUTHORITY="$auth" xdpyinfo > /dev/null 2>&1 && return 0
        sleep 0.05
    done
    return 1
}

# shot FILE: a screenshot of the root window of $DISPLAY ($XAUTHORITY).
shot() { import -window root "$1" 2> /dev/null; }

# ocr FILE [GEOMETRY]: the text tesseract reads on the screenshot (or the part WIDTHxHEIGHT+X+Y
# of it), grey and enlarged, once for each rendering in OCR_MODES (default: as is, inverted,
# black and white: light text on dark and dark on light both come out; a test that knows its
# screen names one, each costs ~0.5 s), and each of tesseract's page layouts in OCR_PSMS
# (3, its default, reads a block of text; 11, sparse text, finds a dialog's scattered words).
# /usr/bin/convert: the real ImageMagick.
OCR_MODES=("" "-negate" "-threshold 35%")
SCREEN=""
OCR_PSMS=(3)
ocr() {
    local file=$1 crop=() v psm
    [ -n "${2:-}" ] && crop=(-crop "$2" +repage)
    for v in "${OCR_MODES[@]}"; do
        # shellcheck disable=SC2086  # v is a word list
        /usr/bin/convert "$file" "${crop[@]}" -colorspace Gray -resize 300% $v "$file.ocr.png" 2> /dev/null || continue
        for psm in "${OCR_PSMS[@]}"; do tesseract "$file.ocr.png" - --psm "$psm" 2> /dev/null; done
    done
    rm -f "$file.ocr.png"
}
# click_word WORD GEOMETRY: clicks the middle of the first WORD tesseract finds in that part of
# the screen ($SHOT, just taken; GEOMETRY as for ocr, mode as is, sparse text). 1 if not found.
click_word() {
    local geo=$2 ox oy xy
    ox=$(sed 's/^[0-9]*x[0-9]*+\([0-9]*\)+[0-9]*$/\1/' <<< "$geo"); oy=${geo##*+}
    /usr/bin/convert "$SHOT" -crop "$geo" +repage -colorspace Gray -resize 300% "$SHOT.ocr.png" 2> /dev/null || return 1
    xy=$(tesseract "$SHOT.ocr.png" - --psm 11 tsv 2> /dev/null |
        awk -F'\t' -v w="$1" -v ox="$ox" -v oy="$oy" \
            '$12 == w { printf "%d %d\n", ox + ($7 + $9 / 2) / 3, oy + ($8 + $10 / 2) / 3; exit }')
    rm -f "$SHOT.ocr.png"
    [ -n "$xy" ] || return 1
    # shellcheck disable=SC2086  # x and y
    xdotool mousemove $xy click 1 2> /dev/null  # (a click that ends the X server fails here)
    return 0
}
# squeeze: lower case, without blanks (tesseract drops or adds spaces: "after 6s"; a sparse
# reading splits lines).
squeeze() { tr -d ' \t\n' | tr '[:upper:]' '[:lower:]'; }
# seen TEXT: the last screen read (SCREEN) shows TEXT, spaces and case aside.
seen() { grep -qF -- "$(squeeze <<< "$1")" <<< "$(squeeze <<< "$SCREEN")"; }
unseen() { ! seen "$1"; }
# read_screen [GEOMETRY]: SCREEN = what the screen shows now (a screenshot in $SHOT).
read_screen() { shot "$SHOT" && SCREEN=$(ocr "$SHOT" "${1:-}"); }
# wait_screen TEXT SECONDS [GEOMETRY]: until the screen shows TEXT.
wait_screen() {
    local deadline=$(($(date +%s%N) / 1000000 + $2 * 1000))
    while :; do
        read_screen "${3:-}"
        seen "$1" && return 0
        [ "$(($(date +%s%N) / 1000000))" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
# wait_screen_any TEXT1 TEXT2 SECONDS [GEOMETRY]: until the screen shows one of the two.
wait_screen_any() {
    local deadline=$(($(date +%s%N) / 1000000 + $3 * 1000))
    while :; do
        read_screen "${4:-}"
        seen "$1" || seen "$2" && return 0
        [ "$(($(date +%s%N) / 1000000))" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
# wait_screen_both TEXT1 TEXT2 SECONDS [GEOMETRY]: until the screen shows both at once.
wait_screen_both() {
    local deadline=$(($(date +%s%N) / 1000000 + $3 * 1000))
    while :; do
        read_screen "${4:-}"
        seen "$1" && seen "$2" && return 0
        [ "$(($(date +%s%N) / 1000000))" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

# x_keyboard: "held" when an X client of $DISPLAY holds the keyboard grab (a locker that is up:
# what is typed now is queued for it), "free" when nobody does (ours succeeds, and is let go at
# once). A locker that finds the grab held when it starts gives up ("Cannot grab
# pointer/keyboard"), and the X server lets an ended client's grab go only once it has seen the
# client's connection close.
x_keyboard() {
    /usr/bin/python3 -c '
import ctypes, sys
x = ctypes.CDLL("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
x.XOpenDisplay.argtypes = [ctypes.c_char_p]
x.XDefaultRootWindow.restype = ctypes.c_ulong
x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x.XGrabKeyboard.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong]
x.XUngrabKeyboard.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
d = x.XOpenDisplay(None)
if not d:
    sys.exit(2)
status = x.XGrabKeyboard(d, x.XDefaultRootWindow(d), 0, 1, 1, 0)  # GrabModeAsync, CurrentTime
if status == 0:  # GrabSuccess
    x.XUngrabKeyboard(d, 0)
x.XSync(d, 0)
print("free" if status == 0 else "held")'
}
# wait_keyboard held|free SECONDS: until x_keyboard says so.
wait_keyboard() {
    local deadline=$(($(date +%s%N) / 1000000 + $2 * 1000))
    until [ "$(x_keyboard 2> /dev/null)" = "$1" ]; do
        [ "$(($(date +%s%N) / 1000000))" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

# keep_png FROM TO: a small PNG for docs/ (1024x768 at most, 64 colours: well under 100 KB).
keep_png() {
    /usr/bin/convert "$1" -resize '1024x768>' -colors 64 -strip "PNG8:$2" 2> /dev/null
}

# wait_socket PATH SECONDS: until the virtual sensor listens there (the helper opened it).
wait_socket() {
    local _
    for _ in $(seq $(($2 * 50))); do [ -S "$1" ] && return 0; sleep 0.02; done
    return 1
}

# untaken_touch SCANS...: offers the scans at the sensor until vsensor.py gives up (10 s with
# nobody listening there): an event proving no sensor was armed all that while, so a negative
# check after it means something. Status 0 when nobody took them; TOUCH_OUT says what it saw.
untaken_touch() {
    TOUCH_OUT=$(python3 "$E2E/vsensor.py" "$SOCK" "$@" 2>&1)
    [ $? -ne 0 ] && grep -q "nobody listens" <<<"$TOUCH_OUT"
}

# two_users: the test user and someone else (OTHER), each with a password; TUID, and the scans of
# each one's right index finger (FINGER, ELSE). enroll_two_users, once CONF is written: both
# fingers enrolled on the virtual sensor, each a setup check.
two_users() {
    make_user "$TUSER" "$TPASS"
    OTHER=$NOPRINTS_USER  # someone else, with prints of her own on the same sensor
    make_user "$OTHER" "$TPASS"
    TUID=$(id -u "$TUSER")
    FINGER="SCAN tu-right-index"
    ELSE="SCAN other-right-index"
}
enroll_two_users() {
    enroll "$TUSER" right-index-finger tu-right-index
    check "(setup) $TUSER enrolled" test -f "$T/prints/$TUSER/virtual_device/0/7"
    enroll "$OTHER" right-index-finger other-right-index
    check "(setup) $OTHER enrolled" test -f "$T/prints/$OTHER/virtual_device/0/7"
}
