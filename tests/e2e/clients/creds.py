# SPDX-License-Identifier: Apache-2.0
# creds.py FD CMD...: runs CMD with FD (1 or 2) a pipe that is already full, so its first write
# there blocks. While it blocks (the kernel says it is in write(FD, ...)) its credentials are
# read from /proc: the privileges it runs with at that moment, not what its exit status suggests.
# Prints "Uid: ...", "Gid: ..." (real, effective, saved, fs), then drains the pipe; then "exit N"
# and what it wrote there.
import fcntl, os, subprocess, sys, time
fd_target, cmd = int(sys.argv[1]), sys.argv[2:]
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, os.O_NONBLOCK)
filled = 0
try:
    while True:
        filled += os.write(w, b"x" * 4096)
except BlockingIOError:
    pass
fcntl.fcntl(w, fcntl.F_SETFL, 0)
other = subprocess.DEVNULL
p = subprocess.Popen(cmd, stdin=sys.stdin, stdout=w if fd_target == 1 else other,
                     stderr=w if fd_target == 2 else other)
os.close(w)
seen = None
deadline = time.monotonic() + 15
while time.monotonic() < deadline and p.poll() is None:
    try:
        call = open(f"/proc/{p.pid}/syscall").read().split()
        # x86_64: write is syscall 1; aarch64: 64
        if call and call[0] in ("1", "64") and int(call[1], 16) == fd_target:
            seen = [l.strip() for l in open(f"/proc/{p.pid}/status") if l.startswith(("Uid:", "Gid:"))]
            break
    except (OSError, IndexError, ValueError):
        pass
    time.sleep(0.005)
print("\n".join(seen) if seen else "never blocked in write(%d)" % fd_target)
data = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    data += chunk
p.wait()
print("exit", p.returncode)
sys.stdout.write(data[filled:].decode(errors="replace"))
