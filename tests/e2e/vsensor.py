#!/usr/bin/env python3
"""Drive libfprint's virtual sensor: vsensor.py SOCKET COMMAND [COMMAND ...]

Waits (up to 10 s) until the process that uses libfprint listens on SOCKET, then sends each
command on its own connection, with no trailing newline, and waits for the driver to close the
connection: that close is the only acknowledgement (TESTING.md). Commands: 'SCAN <id>',
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
    deadline = time.monotonic() + 10
    for command in sys.argv[2:]:
        send(sys.argv[1], command, deadline)


if __name__ == "__main__":
    main()
