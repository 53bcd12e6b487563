#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""getty.py BASE COMMAND...: run COMMAND as getty leaves login: the session leader of a new
terminal (a pseudo-terminal here), which is its controlling one. What it writes goes to
BASE.out (as written, \\r\\n and all); what is written to the FIFO BASE.in is typed to it; when
it ends, BASE.rc gets "exit N" or "signal N".

Why not tmux (tests/e2e/NOTES.md): util-linux's login closes its terminal, calls vhangup() and
opens it again. In between nobody holds the terminal, and a reader of the other side (tmux)
gets EIO, takes the window for dead and closes it: login then dies of SIGHUP. This reader
reads on through EIO for as long as COMMAND lives, as a VT, which has no other side, would.
"""
import os
import pty
import select
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base = sys.argv[1]
    keys = os.open(base + ".in", os.O_RDWR | os.O_NONBLOCK)  # RDWR: no EOF when writers go
    out = os.open(base + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
    pid, master = pty.fork()  # the child: setsid, the terminal its controlling one
    if pid == 0:
        os.execvp(sys.argv[2], sys.argv[2:])
    status = None
    while True:
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                drain_until = time.monotonic() + 0.5
        elif time.monotonic() > drain_until:
            break
        ready, _, _ = select.select([master, keys], [], [], 0.05)
        if keys in ready:
            data = os.read(keys, 4096)
            if data and status is None:
                os.write(master, data)
        if master in ready:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: nobody holds the terminal right now (login's vhangup)
                time.sleep(0.01)
                continue
            if data:
                os.write(out, data)
            elif status is not None:
                break
    if os.WIFSIGNALED(status):
        result = f"signal {os.WTERMSIG(status)}"
    else:
        result = f"exit {os.waitstatus_to_exitcode(status)}"
    with open(base + ".rc", "w") as f:
        f.write(result + "\n")


if __name__ == "__main__":
    main()
