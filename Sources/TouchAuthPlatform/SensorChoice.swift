// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore

extension Sensor {
    /// How commands and people name a sensor: fprintd's path parts, `driver/device_id`.
    package static func label(_ device: Device) -> String { "\(device.driver)/\(device.deviceID)" }

    /// What a command needs of the sensor it is given (pam-verify arms every reader with the
    /// user's prints instead: Readers.armed).
    package enum Need {
        /// verify, enable: the first sensor with an enrolled finger of the user (a file in
        /// fprintd's layout), whose prints are then loaded.
        case enrolledFinger
        /// enroll: as `enrolledFinger`, else the first sensor (enrolling a first finger).
        case anySensor
    }

    /// Why no sensor was chosen.
    package enum Refusal: Error, Equatable {
        case noSensor
        /// `--device` named no sensor, or more than one (`matches`) of those `found`.
        case unknownName(String, matches: Int, found: [String])
        /// None of these sensors has prints of the user.
        case notEnrolled(on: [String])
        case unreadable(CommandError)

        /// The one line a command fails with.
        func commandError(_ command: String, user: UserName) -> CommandError {
            switch self {
            case .noSensor: .unavailable(tr("\(command): no fingerprint reader found"))
            case .unknownName(let named, 0, let found):
                .usage(tr("\(command): no sensor '\(named)' (found: \(found.joined(separator: ", ")))"))
            case .unknownName(let named, _, let found):
                .usage(tr("\(command): more than one sensor '\(named)' (found: \(found.joined(separator: ", ")))"))
            case .notEnrolled(let labels):
                .failed(tr("\(command): \(user) has no fingers enrolled on \(labels.joined(separator: ", ")) (touchauth enroll)"))
            case .unreadable(let error): error
            }
        }
    }

    /// The one choice of the sensor to scan or enrol with, for every command, and the user's prints
    /// on it: the sensor `named` (`driver/device_id`, or a driver with one sensor), else the first
    /// that has prints of the user (what counts is `need`'s), else the first (`.anySensor`).
    package static func choose(
        _ devices: [Device], named: String?, user: UserName, store: PrintStore, need: Need
    ) throws(Refusal) -> (Device, [(Finger, Print)]) {
        guard !devices.isEmpty else { throw .noSensor }
        func withPrints(_ device: Device) throws(Refusal) -> (Device, [(Finger, Print)]) {
            do {
                return (device, try store.prints(user: user, device: device))
            } catch {
                throw .unreadable(error)
            }
        }
        if let named {
            let found = devices.filter { label($0) == named || $0.driver == named }
            guard found.count == 1, let device = found.first else {
                throw .unknownName(named, matches: found.count, found: devices.map(label))
            }
            return try withPrints(device)
        }
        let enrolled = store.enrolled(user: user)
        if let device = devices.first(where: { device in enrolled.contains { $0.0 == device.driver && $0.1 == device.deviceID } }) {
            return try withPrints(device)
        }
        guard need == .anySensor, let first = devices.first else { throw .notEnrolled(on: devices.map(label)) }
        return try withPrints(first)
    }

    /// `choose` for a command: a refusal is the command's one line of error.
    package static func choose(
        for command: String, _ context: Context, named: String?, user: UserName, store: PrintStore, need: Need
    ) throws(CommandError) -> (Device, [(Finger, Print)]) {
        do throws(Refusal) {
            return try choose(context.devices(), named: named, user: user, store: store, need: need)
        } catch {
            throw error.commandError(command, user: user)
        }
    }
}
