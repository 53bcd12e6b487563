# SPDX-License-Identifier: Apache-2.0
# pcaptrim.py SOURCE OUT RANGES [FROM:OLD:NEW] (tests/e2e/usb.sh): a USB recording (pcapng,
# usbmon packets) cut to the packets whose index (0, 1, ... over the packet blocks) is in one
# of RANGES ("A-B,C-D": A <= index < B), every other block kept. Our helper's sequence is
# not the recorded session's (open, enrol, list, verify, identify, delete, close): its
# open, identify and close are cut out of it, in the order umockdev replays them. FROM:OLD:NEW
# replaces the bytes OLD with NEW (ASCII, same length) in the packets from index FROM on: the
# chip then names another print as the finger it matched (a stranger's).
import struct
import sys

source, out_path, spec = sys.argv[1], sys.argv[2], sys.argv[3]
swap = sys.argv[4].split(':') if len(sys.argv) > 4 else None
if swap and len(swap[1]) != len(swap[2]):
    sys.exit('pcaptrim.py: OLD and NEW differ in length')
ranges = [tuple(int(x) for x in r.split('-')) for r in spec.split(',')]
data = open(source, 'rb').read()
out = bytearray()
offset = index = 0
while offset < len(data):
    kind, length = struct.unpack_from('<II', data, offset)
    block = data[offset:offset + length]
    if length < 12 or offset + length > len(data):
        sys.exit('pcaptrim.py: a broken block at %d' % offset)
    if kind != 6:  # not an enhanced packet block: section header, interface description
        out += block
    else:
        if any(a <= index < b for a, b in ranges):
            if swap and index >= int(swap[0]):
                block = block.replace(swap[1].encode(), swap[2].encode())
            out += block
        index += 1
    offset += length
with open(out_path, 'wb') as f:
    f.write(bytes(out))
