# SPDX-License-Identifier: Apache-2.0
# replug.py DESCRIPTION PCAP STEP... (tests/e2e/usb.sh; run under umockdev-wrapper): a umockdev
# testbed in this process, so that its reader can be unplugged and plugged in again between
# commands (umockdev-run cannot). DESCRIPTION's devices are added, the traffic of the reader at
# USB_PORT replayed from PCAP ("-": none); BED_HELPER is written as usb/bed.sh writes it. Each
# STEP, in order:
#   remove              the reader goes: a "remove" uevent, then its sysfs device
#   add                 it comes back (DESCRIPTION's first device again, PCAP's replay from
#                       the start), an "add" uevent
#   bg:COMMAND          COMMAND (sh -c) started in the testbed, not waited for
#   until:FILE:TEXT     waits (at most 30 s) until FILE holds TEXT; exit 1 when it never does
#   wait                waits for the background commands
#   COMMAND             runs COMMAND (sh -c) in the testbed and waits for it
import os
import subprocess
import sys
import time

import gi
gi.require_version('UMockdev', '1.0')
from gi.repository import UMockdev  # noqa: E402

description, pcap, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
port = os.environ['USB_PORT']
bed = UMockdev.Testbed.new()


with open(description) as f:
    reader = f.read().split('\n\n')[0] + '\n'  # the first device: the reader (its parents stay)


def plug(text):
    if not bed.add_from_string(text):
        sys.exit("replug.py: cannot add the devices of " + description)
    if pcap != '-':
        bed.load_pcap(port, pcap)


with open(description) as f:
    plug(f.read())
env = dict(os.environ, UMOCKDEV_DIR=bed.get_root_dir())
with open(os.environ['BED_HELPER'], 'w') as out:
    out.write('#!/bin/sh\nexec env LD_PRELOAD=%s:%s UMOCKDEV_DIR=%s %s "$@"\n'
              % (env['LD_PRELOAD'], env['KEEPENV'], env['UMOCKDEV_DIR'], env['HELPER']))
os.chmod(os.environ['BED_HELPER'], 0o755)

background = []
for step in steps:
    if step == 'remove':
        bed.uevent(port, 'remove')
        bed.remove_device(port)
    elif step == 'add':
        # umockdev leaves the gone node's ioctl socket: the new node's replay could not listen.
        node = [line[3:].split('=')[0] for line in reader.split('\n') if line.startswith('N: ')][0]
        stale = os.path.join(env['UMOCKDEV_DIR'], 'ioctl/dev', node)
        if os.path.exists(stale):
            os.unlink(stale)
        plug(reader)
        bed.uevent(port, 'add')
    elif step.startswith('bg:'):
        background.append(subprocess.Popen(['sh', '-c', step[3:]], env=env))
    elif step.startswith('until:'):
        _, path, text = step.split(':', 2)
        deadline = time.monotonic() + 30
        while True:
            try:
                with open(path, errors='replace') as f:
                    if text in f.read():
                        break
            except FileNotFoundError:
                pass
            if time.monotonic() > deadline:
                print('replug.py: %s never said %r' % (path, text), file=sys.stderr)
                sys.exit(1)
            time.sleep(0.02)
    elif step == 'wait':
        for process in background:
            process.wait()
        background = []
    else:
        subprocess.run(['sh', '-c', step], env=env)
for process in background:
    process.wait()
