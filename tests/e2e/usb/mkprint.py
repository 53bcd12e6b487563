# SPDX-License-Identifier: Apache-2.0
# mkprint.py OUT USER (tests/e2e/usb.sh, in a testbed replaying libfprint's elanmoc recording):
# enrols through libfprint's public API on the one reader, as the recording's enrolment goes,
# names the print USER's right index finger and writes it serialized (fprintd's format) to OUT.
# FP_DEVICE_EMULATION=1: the chip's user id as recorded ("FP1-00000000-0-00000000-nobody").
# It exits without closing the reader: the recording's close comes after steps we do not run.
import os
import sys
import gi
gi.require_version('FPrint', '2.0')
from gi.repository import FPrint

context = FPrint.Context()
context.enumerate()
device = context.get_devices()[0]
assert device.get_driver() == 'elanmoc'
device.open_sync()
enrolled = device.enroll_sync(FPrint.Print.new(device), None, None, None)
enrolled.set_finger(FPrint.Finger.RIGHT_INDEX)
enrolled.set_username(sys.argv[2])
with open(sys.argv[1], 'wb') as out:
    out.write(enrolled.serialize())
sys.stdout.flush()
os._exit(0)
