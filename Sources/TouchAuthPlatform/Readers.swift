// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore

/// The readers at hand (docs/POLICY.md#the-lid-and-the-readers-at-hand): which of the connected readers a prompt arms. Every
/// reader that has the user's prints, except, while a laptop lid is closed, those inside it: a
/// reader counts as outside the lid only on a USB port sysfs calls removable.
package enum Readers {
    /// Where a reader sits, as sysfs tells.
    package enum Placement: String, Equatable, Sendable {
        /// A USB port whose `removable` says `removable`: outside the lid.
        case removable
        /// `fixed`: built in.
        case fixed
        /// `unknown`, no such file, or a port sysfs does not list.
        case unknown
        /// Not on USB (SPI, I2C): built in.
        case notUSB = "not-usb"

        /// Only a port sysfs calls removable is outside the lid; every doubt is inside (the
        /// safe side: a closed lid then asks for the password).
        package var isExternal: Bool { self == .removable }
    }

    /// A closed laptop lid: any `<lidDir>/*/state` says "closed" (ACPI's button driver:
    /// `state:      closed`). No directory: no lid.
    package static func lidClosed(_ lidDir: String) -> Bool {
        guard let dir = opendir(lidDir) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".") { continue }
            if let state = readSmall("\(lidDir)/\(name)/state"), state.contains("closed") { return true }
        }
        return false
    }

    /// Where `device` sits. A USB reader: the sysfs device whose `busnum` and `devnum` are its
    /// bus and address, and that device's `removable` (the kernel's view of its port). A
    /// virtual reader (libfprint's test drivers, only loaded from root's config) has no port:
    /// `<sysfsDir>/bus/usb/devices/<driver>/removable` stands for it, a file a real sysfs
    /// never has (so unknown, inside the lid, unless a test made it).
    package static func placement(_ device: Device, sysfsDir: String) -> Placement {
        placement(usb: device.usbLocation, driver: device.driver, sysfsDir: sysfsDir)
    }

    /// The same from the reader's USB bus and address (nil: not on USB) and its driver. A USB
    /// reader that sysfs does not list (no device of that bus and address): unknown, inside.
    static func placement(usb: (bus: Int, address: Int)?, driver: String, sysfsDir: String) -> Placement {
        let devices = "\(sysfsDir)/bus/usb/devices"
        if let (bus, address) = usb {
            guard let port = usbPort(devices, bus: bus, address: address) else { return .unknown }
            return removable("\(devices)/\(port)/removable")
        }
        if driver.hasPrefix("virtual_") { return removable("\(devices)/\(driver)/removable") }
        return .notUSB
    }

    private static func removable(_ path: String) -> Placement {
        switch readSmall(path)?.trimmingBlanks {
        case "removable": .removable
        case "fixed": .fixed
        default: .unknown
        }
    }

    /// The sysfs name of the USB device at that bus and address (`1-2`, `3-1.4`); interfaces
    /// (`1-2:1.0`) and root hubs have their own names and no match.
    private static func usbPort(_ devices: String, bus: Int, address: Int) -> String? {
        guard let dir = opendir(devices) else { return nil }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".") || name.contains(":") { continue }
            if readSmall("\(devices)/\(name)/busnum").flatMap({ Int($0.trimmingBlanks) }) == bus,
                readSmall("\(devices)/\(name)/devnum").flatMap({ Int($0.trimmingBlanks) }) == address
            {
                return name
            }
        }
        return nil
    }

    /// A small file of the kernel's (sysfs, procfs): its first 128 bytes, nil when unreadable.
    private static func readSmall(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = retryingEINTR { read(fd, &buffer, buffer.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }

    /// One reader as a prompt would see it now.
    package struct Reader {
        package let device: Device
        package let placement: Placement
        /// The user's prints on it (empty: none).
        package let prints: [(Finger, Print)]
        /// Whether a prompt arms it now: it has prints, and the lid is open or it is outside.
        package let armed: Bool
    }

    /// Why a prompt arms no reader.
    package enum Refusal: Error, Equatable {
        case noSensor
        /// None of these readers has prints of the user.
        case notEnrolled(on: [String])
        /// The lid is closed and every reader with prints is inside it.
        case lidClosed(inside: [String])
        case unreadable(CommandError)
    }

    /// Every reader with what a prompt would make of it now.
    package static func survey(
        _ devices: [Device], user: UserName, store: PrintStore, lidClosed: Bool, sysfsDir: String
    ) throws(CommandError) -> [Reader] {
        try devices.map { device throws(CommandError) in
            let prints = try store.prints(user: user, device: device)
            let placement = placement(device, sysfsDir: sysfsDir)
            return Reader(
                device: device, placement: placement, prints: prints,
                armed: !prints.isEmpty && (!lidClosed || placement.isExternal))
        }
    }

    /// The readers a prompt arms, in libfprint's order: at least one, or why none.
    package static func armed(
        _ devices: [Device], user: UserName, store: PrintStore, config: Config
    ) throws(Refusal) -> [Reader] {
        guard !devices.isEmpty else { throw .noSensor }
        let readers: [Reader]
        do throws(CommandError) {
            readers = try survey(
                devices, user: user, store: store, lidClosed: lidClosed(config.lidDir), sysfsDir: config.sysfsDir)
        } catch {
            throw .unreadable(error)
        }
        let armed = readers.filter(\.armed)
        if !armed.isEmpty { return armed }
        let enrolled = readers.filter { !$0.prints.isEmpty }
        if enrolled.isEmpty { throw .notEnrolled(on: devices.map(Sensor.label)) }
        throw .lidClosed(inside: enrolled.map { Sensor.label($0.device) })
    }
}

extension String {
    fileprivate var trimmingBlanks: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\n" || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\n" || c == "\t" { s.removeLast() }
        return String(s)
    }
}
