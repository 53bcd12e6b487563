#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ptyout.py COMMAND...: run COMMAND with stdout and stderr on a pseudo-terminal (stdin stays as
it is), copying what it writes to our stdout. Programs then line-buffer stdout, so their
stdout and stderr lines keep the order the user would see. (stdbuf -o0 does the same by
LD_PRELOAD, but with pam_wrapper also preloaded it leaves /tmp/pam.X copies behind.)"""
import os
import pty
import sys


def main():
    master, slave = pty.openpty()
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.dup2(slave, 1)
        os.dup2(slave, 2)
        os.close(slave)
        os.execvp(sys.argv[1], sys.argv[1:])
    os.close(slave)
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the command and its children closed the terminal
            break
        if not data:
            break
        os.write(1, data.replace(b"\r\n", b"\n"))
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)


if __name__ == "__main__":
    main()
