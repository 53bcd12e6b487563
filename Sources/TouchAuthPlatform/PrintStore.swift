// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore

/// Prints in fprintd's layout and format: `<print_dir>/<user>/<driver>/<device_id>/<finger>`,
/// each file the bytes of `fp_print_serialize`, directories root 0700. Prints enrolled by
/// fprintd verify here and ours show up in `fprintd-list`.
package struct PrintStore {
    package let root: String

    package init(root: String) { self.root = root }
    package static let maxPrintBytes = 1 << 20

    package func directory(user: UserName, driver: String, deviceID: String) throws(CommandError) -> String {
        for part in [driver, deviceID] where !PrintStore.isSafeComponent(part) {
            throw .unavailable(tr("refusing device path component \(part)"))
        }
        return "\(root)/\(user)/\(driver)/\(deviceID)"
    }

    static func isSafeComponent(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && name.utf8.count <= 255
            && !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 < 0x20 || $0 == 0x7f })
    }

    /// The user's prints for this device, in finger order. A file that is unsafe, unreadable,
    /// or whose embedded finger, user, driver or device disagree with its path is skipped and
    /// logged (fprintd skips those too).
    package func prints(user: UserName, device: Device) throws(CommandError) -> [(Finger, Print)] {
        let path = try directory(user: user, driver: device.driver, deviceID: device.deviceID)
        for dir in [root, "\(root)/\(user)", "\(root)/\(user)/\(device.driver)", path] {
            do {
                guard try Files.checkTrustedDirectory(dir) else { return [] }
            } catch {
                throw .unavailable(error.description)
            }
        }
        var found: [(Finger, Print)] = []
        for name in Files.listDirectory(path) {
            guard let finger = Finger(fileName: name) else { continue }
            do {
                let print = try Print.deserialize(
                    Files.readTrustedFile("\(path)/\(name)", maxBytes: PrintStore.maxPrintBytes))
                guard print.finger == finger, print.username == user.value, print.driver == device.driver,
                    print.deviceID == device.deviceID
                else {
                    Syslog.log(LOG_WARNING, "\(path)/\(name): print does not belong at this path, skipped")
                    continue
                }
                found.append((finger, print))
            } catch {
                Syslog.log(LOG_WARNING, "\(path)/\(name): skipped: \(error)")
            }
        }
        return found
    }

    package func save(_ print: Print, user: UserName, finger: Finger, device: Device) throws(CommandError) -> String {
        let path = try directory(user: user, driver: device.driver, deviceID: device.deviceID)
        do {
            // The print directory itself may be new (its parent must exist); below it, every
            // level is created root 0700 and checked, so a planted link or foreign directory is refused.
            if mkdir(root, 0o700) != 0 && errno != EEXIST { throw FileError.io(root, errno) }
            guard try Files.checkTrustedDirectory(root) else { throw FileError.missing(root) }
            try Files.makeDirectories(path, below: root)
            let file = "\(path)/\(finger.fileName)"
            try Files.writeAtomically(try print.serialize(), to: file, mode: 0o600)
            return file
        } catch let error as FileError {
            throw .failed(error.description)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// A digest of the user's enrolled prints on every sensor (which fingers, and the bytes of
    /// each): it changes when a finger is added, replaced or removed, like LocalAuthentication's
    /// `evaluatedPolicyDomainState`.
    package func hash(user: UserName) -> String {
        var material: [UInt8] = []
        for (driver, deviceID, finger) in enrolled(user: user) {
            let path = "\(root)/\(user)/\(driver)/\(deviceID)/\(finger.fileName)"
            let bytes = (try? Files.readTrustedFile(path, maxBytes: PrintStore.maxPrintBytes)) ?? []
            material += Array("\(driver)/\(deviceID)/\(finger.fileName) \(Checksum.sha256(bytes))\n".utf8)
        }
        return Checksum.sha256(material)
    }

    /// Every enrolled finger of a user, on any device: (driver, device id, finger).
    package func enrolled(user: UserName) -> [(String, String, Finger)] {
        let base = "\(root)/\(user)"
        var out: [(String, String, Finger)] = []
        for driver in Files.listDirectory(base) where PrintStore.isSafeComponent(driver) {
            for deviceID in Files.listDirectory("\(base)/\(driver)") where PrintStore.isSafeComponent(deviceID) {
                for name in Files.listDirectory("\(base)/\(driver)/\(deviceID)") {
                    if let finger = Finger(fileName: name) { out.append((driver, deviceID, finger)) }
                }
            }
        }
        return out
    }
}
