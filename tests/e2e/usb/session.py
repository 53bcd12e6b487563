# SPDX-License-Identifier: Apache-2.0
# session.py (tests/e2e/usb.sh, in a testbed replaying libfprint's whole elanmoc recording,
# FP_DEVICE_EMULATION=1): the recorded session through libfprint's public API, each step's
# result checked: enrol, list (the one print), verify (a match), identify (the same print),
# delete, close. Prints "session: ok" at the end.
import gi
gi.require_version('FPrint', '2.0')
from gi.repository import FPrint, GLib  # noqa: E402

context = FPrint.Context()
context.enumerate()
device = context.get_devices()[0]
assert device.get_driver() == 'elanmoc', device.get_driver()
assert device.has_feature(FPrint.DeviceFeature.IDENTIFY)
device.open_sync()
enrolled = device.enroll_sync(FPrint.Print.new(device), None, None, None)
stored = device.list_prints_sync()
assert len(stored) == 1 and stored[0].equal(enrolled), 'list'
matched, _ = device.verify_sync(enrolled)
assert matched, 'verify'
loop = GLib.MainLoop()
found = []


def identified(dev, result):
    found.append(dev.identify_finish(result))
    loop.quit()


device.identify([FPrint.Print.deserialize(p.serialize()) for p in stored], callback=identified)
loop.run()
assert found[0][0] is not None and found[0][0].equal(stored[0]), 'identify'
device.delete_print_sync(enrolled)
device.close_sync()
print('session: ok')
