// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth delete --finger F | --all`: removes the host files and, on a match-on-chip
/// sensor that is present, the chip's copies; then the directories left empty, up to the
/// user's own, so the module's "no prints" skip is cheap again.
enum Delete {
    static func run(_ options: Options) throws(CommandError) {
        guard (options.finger == nil) != !options.all else {
            throw .usage(tr("delete: give --finger FINGER or --all (usage: touchauth delete --finger FINGER | --all [--user USER])"))
        }
        var finger: Finger?
        if let name = options.finger {
            guard let known = Finger(name: name) else {
                throw .usage(tr("delete: unknown finger '\(name)' (one of: \(Finger.allCases.map(\.name).joined(separator: ", ")))"))
            }
            finger = known
        }
        let (user, _) = try Caller.target(options, "delete", denied: translatable("only root may delete the prints of another user"))
        try Caller.requireRoot("delete")
        let config = try Config.load(configPath: options.config)
        let store = PrintStore(root: config.printDir)
        let chosen = store.enrolled(user: user).filter { entry in
            (finger == nil || entry.2 == finger) && (options.device == nil || "\(entry.0)/\(entry.1)" == options.device || entry.0 == options.device)
        }
        guard !chosen.isEmpty else {
            switch (finger, options.device) {
            case (let finger?, let device?): throw .failed(tr("delete: \(finger.name) is not enrolled for \(user) on \(device)"))
            case (let finger?, nil): throw .failed(tr("delete: \(finger.name) is not enrolled for \(user)"))
            case (nil, let device?): throw .failed(tr("delete: no finger is enrolled for \(user) on \(device)"))
            case (nil, nil): throw .failed(tr("delete: no finger is enrolled for \(user)"))
            }
        }
        Sensor.configure(config)
        let context = Context()
        let devices = context.devices()
        for (driver, deviceID, finger) in chosen {
            let directory = try store.directory(user: user, driver: driver, deviceID: deviceID)
            let path = "\(directory)/\(finger.fileName)"
            if let device = devices.first(where: { $0.driver == driver && $0.deviceID == deviceID }), device.hasStorage {
                forgetOnChip(device, path: path)
            }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .failed("delete: \(path): \(String(cString: strerror(errno)))")
            }
            // Empty directories go, up to the user's (rmdir fails on any that is not empty).
            _ = rmdir(directory)
            _ = rmdir("\(config.printDir)/\(user)/\(driver)")
            _ = rmdir("\(config.printDir)/\(user)")
            Syslog.log(LOG_NOTICE, "\(user): \(finger.name) deleted from \(driver)/\(deviceID)")
            Files.write(tr("Deleted \(finger.name) of \(user) (\(driver)/\(deviceID))") + "\n", to: 1)
        }
    }

    /// The chip's copy of a host print; a chip that no longer has it is no error.
    static func forgetOnChip(_ device: Device, path: String) {
        guard device.canDeleteStorage,
            let bytes = try? Files.readTrustedFile(path, maxBytes: PrintStore.maxPrintBytes),
            let print = try? Print.deserialize(bytes)
        else { return }
        let cancellable = Cancellable(milliseconds: 10_000)
        do {
            try device.open(cancellable)
            defer { device.close() }
            try device.deleteStored(print, cancellable)
        } catch {
            Files.write(tr("touchauth: warning: \(Sensor.label(device)): could not remove the chip's copy: \(error)") + "\n", to: 2)
        }
    }
}
