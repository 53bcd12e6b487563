#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ab_listens.py REQUEST SOCKET N HELPER...: the way to the prompt of each helper, interleaved.

Each run spawns `HELPER pam-verify` with REQUEST on stdin and times spawn -> the virtual
sensor's SOCKET appears (the helper opens the reader only once it has armed), then sends a SCAN
so it ends with a success; the order of the helpers alternates run by run. Prints the median,
the first quartile and the minimum of each (bench/ab-listens.sh runs it).
"""
import os
import socket
import statistics
import subprocess
import sys
import time


def scan(path):
    while True:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            break
        except OSError:
            s.close()
            time.sleep(0.0002)
    with s:
        s.sendall(b"SCAN ab-finger")
        try:
            while s.recv(1024):
                pass
        except OSError:
            pass


def main():
    request, path, runs, helpers = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    data = open(request, "rb").read()
    times = {h: [] for h in helpers}
    for i in range(runs):
        for helper in helpers if i % 2 == 0 else helpers[::-1]:
            if os.path.exists(path):
                os.unlink(path)
            start = time.perf_counter()
            p = subprocess.Popen([helper, "pam-verify"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
            p.stdin.write(data)
            p.stdin.close()
            while not os.path.exists(path):
                time.sleep(0.00005)
            times[helper].append((time.perf_counter() - start) * 1000)
            scan(path)
            out = p.stdout.read()
            p.wait()
            if b"result success" not in out:
                sys.exit(f"{helper}: no success: {out[-200:]!r}")
    for helper in helpers:
        t = sorted(times[helper])
        print("%-12s median %.2f ms, p25 %.2f, min %.2f (n=%d)"
              % (os.path.basename(helper), statistics.median(t), t[len(t) // 4], t[0], len(t)))


main()
