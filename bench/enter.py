#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Enter -> password prompt, in a pty (issue 8, figure 5).

    enter.py RUNS PASSWORD HINT_REGEX COMMAND ARGS...

Runs the command in a new pty (its controlling terminal; "@TTY@" in an argument becomes the
pty's name, for pamtester's `-I tty=@TTY@`, as sudo sets PAM_TTY), waits for the fingerprint prompt, lets the sensor sit armed for 50 ms, presses Enter
(writes "\\r") and times until pam_unix's "Password: " appears; then types the password and
expects "successfully authenticated". The stack's fingerprint timeout must be a few seconds: if
Enter does not skip to the password (the feature of issue 4 is missing), the prompt only comes
after that timeout.

Prints "hint=<the fingerprint lines seen>" once, then per run "enter=<us>" (Enter -> prompt),
or "absent=<us>" (the prompt came only after 1.5 s: Enter did not skip) and stops.
"""
import os
import pty
import re
import select
import sys
import time

PROMPT_TIMEOUT = 10.0
SKIP_LIMIT = 1.5  # seconds: slower than this after Enter means the feature is not there


def read_until(fd, buf, pattern, deadline):
    while True:
        m = re.search(pattern, buf)
        if m:
            return buf, m
        left = deadline - time.monotonic()
        if left <= 0:
            return buf, None
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            return buf, re.search(pattern, buf)
        if not data:
            return buf, re.search(pattern, buf)
        buf += data.decode("utf-8", "replace")


def one_run(password, hint_re, args):
    pid, fd = pty.fork()
    if pid == 0:
        tty = os.ttyname(0)
        os.execvp(args[0], [a.replace("@TTY@", tty) for a in args])
    buf = ""
    try:
        buf, m = read_until(fd, buf, r"fingerprint reader[^\n]*\n(?:[^\n]*\n)?", time.monotonic() + PROMPT_TIMEOUT)
        if not m:
            return None, f"no fingerprint prompt; output: {buf[-300:]!r}", buf
        time.sleep(0.05)
        start = time.monotonic()
        os.write(fd, b"\r")
        buf, m = read_until(fd, buf, r"Password: ", time.monotonic() + PROMPT_TIMEOUT)
        took = time.monotonic() - start
        if not m:
            return None, f"no password prompt after Enter; output: {buf[-300:]!r}", buf
        os.write(fd, password.encode() + b"\r")
        buf, m = read_until(fd, buf, r"successfully authenticated", time.monotonic() + PROMPT_TIMEOUT)
        if took > SKIP_LIMIT:  # without the feature the early Enter may have been the password
            read_until(fd, buf, r"(?!)", time.monotonic() + 3)  # let it end by itself
            return took, None, buf
        if not m:
            return None, f"the password did not authenticate; output: {buf[-300:]!r}", buf
        return took, None, buf
    finally:
        try:
            os.close(fd)
        except OSError:
            pass
        os.waitpid(pid, 0)


def main():
    runs, password, hint_re, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    for i in range(runs):
        took, err, buf = one_run(password, hint_re, args)
        if err:
            print(f"error={err}", flush=True)
            sys.exit(1)
        if i == 0:
            lines = [l.strip() for l in buf.splitlines()
                     if not l.startswith(("pamtester:", "PWRAP")) and ("finger" in l.lower() or "enter" in l.lower())]
            hinted = bool(re.search(hint_re, buf, re.I))
            print(f"hint={' / '.join(lines)[:200]} hinted={int(hinted)}", flush=True)
        if took > SKIP_LIMIT:
            print(f"absent={int(took * 1e6)}", flush=True)
            return
        print(f"enter={int(took * 1e6)}", flush=True)


if __name__ == "__main__":
    main()
