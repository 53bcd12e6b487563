#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pam/tests/pamstack/cases.sh DIR: writes the hand-made cases of the differential test, one
# directory each (its service "svc", what it includes, its own "other"), into DIR. Includes name
# their file by path: Debian 12's libpam reads a relative include in /etc/pam.d even under
# pam_start_confdir (the test's confdir is only the service's and "other"'s). Issue 50's
# list first: each is a file an administrator may write that a reader got wrong.
set -euo pipefail
out=$1
k=pam_gnome_keyring.so
case_() { here=$out/$1; mkdir -p "$here"; cd "$here"; }  # $here: includes by path (see below)
w() { printf -- "$2" > "$1"; }   # w FILE FORMAT: printf's escapes, no arguments

case_ bracket-no-blank;      w svc "auth [default=ignore]$k\nauth required pam_unix.so\n"
case_ bracket-escaped;       w svc "auth [success=ok foo\\\\]=x default=ignore] $k\n"
case_ bracket-escaped-ok;    w svc "auth [success=ok default=ignore \\\\]] $k arg\n"
case_ blank-after-backslash; w svc "auth optional \\\\ \n $k\n"
case_ tab-after-backslash;   w svc "auth optional \\\\\t\n\t$k a\n"
case_ continue-over-blank;   w svc "auth optional \\\\\n\n$k\n"
case_ continue-over-comment; w svc "auth optional \\\\\n# a comment\n$k\n"
case_ continue-empty;        w svc "\\\\\n\\\\\nauth optional $k\n"
case_ continue-at-eof;       w svc "auth required pam_unix.so\nauth optional $k \\\\\n"
case_ cr;                    w svc "auth optional $k\r\nauth required pam_unix.so\r\n"
case_ cr-args;               w svc "auth optional $k a\r\n\r\nauth required pam_unix.so b\r\n"
case_ vt;                    w svc "auth\voptional $k\nauth required pam_unix.so\n"
case_ ff;                    w svc "auth optional\f$k\nauth required pam_unix.so\n"
case_ comment-in-bracket;    w svc "auth [default=ignore # no] $k\nauth required pam_unix.so\n"
case_ hash-in-arg;           w svc "auth optional $k a#b\n"
case_ bracket-arg;           w svc "auth optional $k [a b c] d\n"
case_ bracket-arg-open;      w svc "auth optional $k [a b c\n"
case_ bracket-type;          w svc "[auth] optional $k\nauth required pam_unix.so\n"
case_ silent;                w svc "-auth optional $k\n-session optional pam_x.so\n"
case_ bad-type;              w svc "bogus optional $k\nauth required pam_unix.so\naccount required pam_unix.so\n"
case_ no-control;            w svc "auth\naccount required pam_unix.so\n"
case_ no-module;             w svc "auth optional\nauth required pam_unix.so\n"
case_ jumps;                 w svc "auth [success=2 default=ignore] pam_a.so\nauth [success=1 default=bad] pam_b.so\nauth requisite pam_deny.so\nauth required pam_permit.so\nauth optional $k\n"
case_ jump-too-far;          w svc "auth [default=5] pam_a.so\nauth required pam_b.so\n"
case_ jump-huge;             w svc "auth [default=99999999999] pam_a.so\nauth required pam_b.so\n"
case_ control-syntax;        w svc "auth [success=ok default] pam_a.so\nauth [succes=ok] pam_b.so\nauth [ success = done  default=ignore ] pam_c.so\nauth [success=okdefault=die] pam_d.so\n"
case_ control-case;          w svc "auth REQUIRED pam_a.so\nAuth Sufficient pam_b.so\nauth [SUCCESS=ok] pam_c.so\n"
case_ reset-die-done;        w svc "auth [success=done default=reset] pam_a.so\nauth [default=die] pam_b.so\nauth optional pam_c.so\n"
case_ include;               w svc "auth include $here/inc\naccount include $here/inc\n"; w inc "auth required pam_a.so x\naccount required pam_b.so\nsession required pam_c.so\n"
case_ include-missing;       w svc "auth include $here/nothere\nauth optional $k\n"
case_ include-none;          w svc "auth include\nauth optional $k\n"
case_ substack-none;         w svc "auth substack\nauth optional $k\n"
case_ at-include-none;       w svc "@include\nauth optional $k\n"
case_ include-case;          w svc "auth INCLUDE $here/inc\n"; w inc "auth required pam_a.so\n"
case_ include-bad-type;      w svc "bogus include $here/inc\n"; w inc "auth required pam_a.so\naccount required pam_b.so\n"
case_ at-include;            w svc "@include $here/inc\nauth optional $k\n"; w inc "auth required pam_a.so\naccount required pam_b.so\nsession required pam_c.so\n"
case_ at-include-missing;    w svc "@include $here/nothere\nauth required pam_a.so\n"
case_ at-include-upper;      w svc "@INCLUDE $here/inc\nauth required pam_a.so\n"; w inc "auth required pam_b.so\n"
case_ substack;              w svc "auth substack $here/sub\nauth required pam_z.so\n"; w sub "auth [success=done default=die] pam_a.so\nauth required pam_b.so\n"
case_ substack-missing;      w svc "auth substack $here/nothere\nauth optional $k\n"
case_ substack-jump;         w svc "auth [success=1 default=ignore] pam_a.so\nauth substack $here/sub\nauth required pam_z.so\n"; w sub "auth required pam_b.so\nauth required pam_c.so\n"
case_ substack-reset;        w svc "auth required pam_y.so\nauth substack $here/sub\n"; w sub "auth required pam_b.so\nauth [default=reset] pam_c.so\n"
case_ other-fallback;        w svc "account required pam_unix.so\n"; w other "auth optional $k\naccount required pam_deny.so\n"
case_ other-missing-service; w other "auth optional $k\n"
case_ other-broken;          w svc "auth required pam_a.so\n"; w other "auth required pam_b.so \\\\\n"
case_ nothing;               w svc "\n# nothing\n"
case_ absolute;              w svc "auth include $here/inc\n"; w inc "auth optional /opt/x/$k\n"
case_ at-include-bad;        w svc "auth required pam_a.so\n@include $here/inc\n"; w inc "auth required pam_b.so \\\\\n"
case_ kwallet;               w svc "auth optional pam_kwallet5.so\n"
# Include and substack chains: libpam's PAM_SUBSTACK_MAX_LEVEL (16).
for kind in include substack; do
    for deep in 15 16 17; do
        case_ "$kind-$deep"
        w svc "auth $kind $here/d1\n"
        for ((i = 1; i < deep; i++)); do w "d$i" "auth $kind $here/d$((i + 1))\n"; done
        w "d$deep" "auth optional $k\n"
    done
done
case_ long-line; printf 'auth optional %s %0900d\n' "$k" 0 > svc
case_ longer-line; printf 'auth optional %s %01100d\n' "$k" 0 > svc
case_ many-args; { printf 'auth optional %s' "$k"; for i in $(seq 70); do printf ' a%d' "$i"; done; echo; } > svc
