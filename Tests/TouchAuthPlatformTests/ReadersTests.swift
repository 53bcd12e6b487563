// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import TouchAuthPlatform

/// The lid (Readers.lidClosed, docs/POLICY.md#the-lid-and-the-readers-at-hand): any `<lid_dir>/*/state` saying closed closes it;
/// no directory, no lid.
@Suite struct ReadersTests {
    /// A lid tree in a fresh temp dir: one `<name>/state` per entry.
    private func lidTree(_ states: [String: String]) -> String {
        var template = Array("/tmp/readers-lid.XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        for (name, state) in states {
            mkdir("\(dir)/\(name)", 0o700)
            let file = fopen("\(dir)/\(name)/state", "w")!
            fputs(state, file)
            fclose(file)
        }
        return dir
    }

    @Test func anyClosedLidIsClosed() {
        #expect(Readers.lidClosed(lidTree(["LID0": "state:      closed\n"])))
        #expect(Readers.lidClosed(lidTree(["LID0": "state:      open\n", "LID1": "state:      closed\n"])))
    }

    @Test func openLidsOrNoLidAreOpen() {
        #expect(!Readers.lidClosed(lidTree(["LID0": "state:      open\n"])))
        #expect(!Readers.lidClosed(lidTree([:])))
        #expect(!Readers.lidClosed("/nonexistent/lid"))
    }

    /// A sysfs tree in a fresh temp dir: `bus/usb/devices/<name>/{busnum,devnum,removable}`.
    private func sysfsTree(_ devices: [String: (bus: Int, address: Int, removable: String)]) -> String {
        var template = Array("/tmp/readers-sysfs.XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        for path in ["\(dir)/bus", "\(dir)/bus/usb", "\(dir)/bus/usb/devices"] { mkdir(path, 0o700) }
        for (name, device) in devices {
            let at = "\(dir)/bus/usb/devices/\(name)"
            mkdir(at, 0o700)
            for (file, text) in [("busnum", "\(device.bus)\n"), ("devnum", "\(device.address)\n"), ("removable", device.removable)] {
                let handle = fopen("\(at)/\(file)", "w")!
                fputs(text, handle)
                fclose(handle)
            }
        }
        return dir
    }

    @Test func aUSBReaderOnARemovablePortIsOutside() {
        let sysfs = sysfsTree(["3-1": (bus: 3, address: 7, removable: "removable\n")])
        #expect(Readers.placement(usb: (bus: 3, address: 7), driver: "elanmoc", sysfsDir: sysfs) == .removable)
    }

    /// A USB reader sysfs does not list (another bus or address only, or no devices at all): unknown,
    /// so inside the lid, never armed with the lid closed.
    @Test func aUSBReaderSysfsDoesNotListIsInside() {
        let other = sysfsTree(["3-1": (bus: 3, address: 8, removable: "removable\n"), "4-1": (bus: 4, address: 7, removable: "removable\n")])
        let unlisted = Readers.placement(usb: (bus: 3, address: 7), driver: "elanmoc", sysfsDir: other)
        #expect(unlisted == .unknown && !unlisted.isExternal)
        let empty = Readers.placement(usb: (bus: 3, address: 7), driver: "elanmoc", sysfsDir: sysfsTree([:]))
        #expect(empty == .unknown && !empty.isExternal)
        let none = Readers.placement(usb: (bus: 3, address: 7), driver: "elanmoc", sysfsDir: "/nonexistent/sysfs")
        #expect(none == .unknown && !none.isExternal)
    }

    @Test func onlyRemovableIsOutsideTheLid() {
        #expect(Readers.Placement.removable.isExternal)
        #expect(!Readers.Placement.fixed.isExternal)
        #expect(!Readers.Placement.unknown.isExternal)
        #expect(!Readers.Placement.notUSB.isExternal)
    }
}
