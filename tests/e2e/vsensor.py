#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drive libfprint's virtual sensor: vsensor.py SOCKET COMMAND [COMMAND ...]

Sends each command on its own connection, with no trailing newline, and waits for the driver to
close the connection: that close is the only acknowledgement (TESTING.md). Each command waits up
to 10 s of its own for the process that uses libfprint to listen on SOCKET and to take it (one
deadline for all the commands ran out on a busy CI machine, 20 helpers at once: the later scans
were never sent). Commands: 'SCAN <id>',
'RETRY <n>', 'ERROR <n>', 'SLEEP <ms>', 'UNPLUG', ...
"""
import socket
import sys
import time


def send(path, command, deadline):
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            break
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                sys.exit(f"vsensor: nobody listens on {path}")
            time.sleep(0.005)
    with s:
        s.sendall(command.encode())
        s.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            while s.recv(1024):
                pass
        except (socket.timeout, ConnectionResetError):
            pass


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for command in sys.argv[2:]:
        send(sys.argv[1], command, time.monotonic() + 10)


if __name__ == "__main__":
    main()
