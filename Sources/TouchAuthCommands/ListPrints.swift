// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth list`: the enrolled fingers, read from the print directory. A print on a
/// match-on-chip sensor is checked against the chip's own list when that sensor is present:
/// a host file whose chip copy is gone cannot match and is reported.
enum ListPrints {
    struct Entry {
        let user: UserName
        let finger: Finger
        let driver: String
        let deviceID: String
        /// nil: not a match-on-chip print, or its sensor could not be asked.
        var onSensor: Bool?
        var note: String?
    }

    static func run(_ options: Options) throws(CommandError) {
        try Caller.requireRoot("list")
        let config = try Config.load(configPath: options.config)
        let store = PrintStore(root: config.printDir)
        var users: [UserName] = []
        if options.user != nil {
            users = [try Caller.target(options, "list", denied: translatable("only root may list the prints of another user")).0]
        } else {
            guard access(config.printDir, R_OK | X_OK) == 0 else {
                throw .failed(tr("list: cannot read \(config.printDir): \(String(cString: strerror(errno)))"))
            }
            users = Files.listDirectory(config.printDir).compactMap(UserName.init)
        }
        let entries = check(users.flatMap { user in
            store.enrolled(user: user).map { Entry(user: user, finger: $0.2, driver: $0.0, deviceID: $0.1) }
        }, config: config)
        if options.json {
            let items = entries.map { entry in
                "{\"user\":\(Status.json(entry.user.value)),\"finger\":\(Status.json(entry.finger.name)),"
                    + "\"driver\":\(Status.json(entry.driver)),\"device\":\(Status.json(entry.deviceID)),"
                    + "\"on_sensor\":\(entry.onSensor.map(String.init) ?? "null")}"
            }
            Files.write("[" + items.joined(separator: ",") + "]\n", to: 1)
            return
        }
        for user in users {
            let mine = entries.filter { $0.user == user }
            if mine.isEmpty {
                Files.write(tr("\(user): no fingers enrolled") + "\n", to: 1)
            }
            for entry in mine {
                Files.write("\(user): \(entry.finger.name) (\(entry.driver)/\(entry.deviceID))" + (entry.note.map { ": \($0)" } ?? "") + "\n", to: 1)
            }
        }
    }

    /// Asks each present match-on-chip sensor which prints it holds (`fp_device_list_prints_sync`).
    static func check(_ entries: [Entry], config: Config) -> [Entry] {
        guard !entries.isEmpty else { return entries }
        Sensor.configure(config)
        let context = Context()
        let devices = context.devices()
        let store = PrintStore(root: config.printDir)
        var out = entries
        for device in devices where device.hasStorage && device.canListStorage {
            let indices = out.indices.filter { out[$0].driver == device.driver && out[$0].deviceID == device.deviceID }
            guard !indices.isEmpty else { continue }
            let cancellable = Cancellable(milliseconds: 10_000)
            let stored: [Print]
            do {
                try device.open(cancellable)
                defer { device.close() }
                stored = try device.storedPrints(cancellable)
            } catch {
                for index in indices { out[index].note = tr("sensor not readable (\(error))") }
                continue
            }
            for index in indices {
                let entry = out[index]
                let host = (try? store.prints(user: entry.user, device: device))?.first { $0.0 == entry.finger }?.1
                let present = host.map { host in stored.contains { $0.isSame(as: host) } } ?? false
                out[index].onSensor = present
                out[index].note = present ? tr("on the sensor") : tr("MISSING from the sensor: re-enroll (touchauth enroll --replace)")
            }
        }
        return out
    }
}
