import Fingerprint
import Glibc
import TouchAuthCore

extension Sensor {
    /// How commands and people name a sensor: fprintd's path parts, `driver/device_id`.
    static func label(_ device: Device) -> String { "\(device.driver)/\(device.deviceID)" }

    /// The sensors, after `configure`. None is an error for a command that needs one.
    static func devices(_ context: Context, _ command: String) throws(CommandError) -> [Device] {
        let devices = context.devices()
        guard !devices.isEmpty else { throw .unavailable("\(command): no fingerprint reader found") }
        return devices
    }

    /// The sensor a command uses for `user`: the one `--device` names (`driver/device_id`, or
    /// a driver with one sensor), else the first that has prints for the user, else the first
    /// (when `needsPrints` is false: enrolling a first finger).
    static func choose(
        _ devices: [Device], named: String?, store: PrintStore, user: UserName, command: String, needsPrints: Bool
    ) throws(CommandError) -> Device {
        if let named {
            let found = devices.filter { label($0) == named || $0.driver == named }
            guard found.count == 1, let device = found.first else {
                let known = devices.map(label).joined(separator: ", ")
                throw .usage("\(command): \(found.isEmpty ? "no" : "more than one") sensor '\(named)' (found: \(known))")
            }
            return device
        }
        let enrolled = store.enrolled(user: user)
        if let device = devices.first(where: { device in enrolled.contains { $0.0 == device.driver && $0.1 == device.deviceID } }) {
            return device
        }
        guard !needsPrints, let first = devices.first else {
            throw .failed("\(command): \(user) has no fingers enrolled on \(devices.map(label).joined(separator: ", ")) (touchauth enroll)")
        }
        return first
    }
}
