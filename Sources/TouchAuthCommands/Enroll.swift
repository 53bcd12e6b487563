// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth enroll`: scans a finger until the sensor has all its stages, then stores the
/// print in fprintd's layout. The file appears only when enrolment completed (written
/// atomically), so an interrupted enrolment leaves nothing behind.
enum Enroll {
    static func run(_ options: Options) throws(CommandError) {
        let (user, _) = try Caller.target(options, "enroll", denied: translatable("only root may enroll another user"))
        try Caller.requireRoot("enroll")
        let finger = try Enroll.finger(named: options.finger ?? Finger.rightIndex.name)
        let config = try Config.load(configPath: options.config)
        Sensor.configure(config)
        let context = Context()
        let store = PrintStore(root: config.printDir)
        let (device, prints) = try Sensor.choose(
            for: "enroll", context, named: options.device, user: user, store: store, need: .anySensor)
        // The print this enrolment replaces, if any (read before the sensor is opened).
        let old = prints.first { $0.0 == finger }?.1
        if old != nil || store.enrolled(user: user).contains(where: { $0 == (device.driver, device.deviceID, finger) }) {
            guard options.replace else {
                throw .failed(tr("enroll: \(finger.name) is already enrolled for \(user) (use --replace)"))
            }
        }
        // fprintd scanning with it (another enrolment, a verification): not taken from it.
        if Readers.heldByFprintd([device.name], Readers.askFprintd()) == [true] {
            throw .unavailable(tr("enroll: \(device.name) is in use by fprintd (an enrollment or a verification); nothing was changed, try again when it is done"))
        }
        let cancellable = Cancellable()
        cancellable.cancelOnInterrupt()
        do {
            try device.open(cancellable)
        } catch {
            throw .unavailable(tr("enroll: cannot open \(device.name): \(error)"))
        }
        defer { device.close() }
        // A match-on-chip sensor would refuse the finger as a duplicate of its old copy.
        if let old, device.hasStorage, device.canDeleteStorage {
            try? device.deleteStored(old, cancellable)
        }
        let print = try scan(device, finger, user, cancellable)
        let path: String
        do {
            path = try store.save(print, user: user, finger: finger, device: device)
        } catch {
            // No host file, no chip copy: the chip must not keep a print nobody can delete.
            if device.hasStorage, device.canDeleteStorage { try? device.deleteStored(print, Cancellable()) }
            throw error
        }
        Syslog.log(LOG_NOTICE, "\(user): \(finger.name) enrolled on \(Sensor.label(device))")
        Files.write(tr("Enrolled \(finger.name) for \(user) (\(path))") + "\n", to: 1)
    }

    /// The finger `--finger` names (the right index when none is given).
    static func finger(named name: String) throws(CommandError) -> Finger {
        guard let finger = Finger(name: name) else {
            throw .usage(tr("enroll: unknown finger '\(name)' (one of: \(Finger.allCases.map(\.name).joined(separator: ", ")))"))
        }
        return finger
    }

    /// Scans until the sensor has all its stages, showing each; a failed scan stores nothing.
    static func scan(_ device: Device, _ finger: Finger, _ user: UserName, _ cancellable: Cancellable) throws(CommandError) -> Print {
        let stages = device.enrollStages
        let terminal = isatty(1) != 0
        Files.write(tr("Enrolling \(finger.name) for \(user) on \(device.name) (\(Sensor.label(device)))") + "\n", to: 1)
        Files.write(tr("\(Message.placeFinger.text), \(stages) times") + "\n", to: 1)
        var shown = 0
        func bar(_ done: Int) -> String {
            tr("stage \(done)/\(stages)") + " [" + String(repeating: "#", count: done) + String(repeating: "-", count: max(0, stages - done)) + "]"
        }
        if terminal { Files.write(bar(0), to: 1) }
        let print: Print
        do {
            print = try device.enroll(Print(templateFor: device, finger: finger, user: user.value), cancellable) { progress in
                switch progress {
                case .stage(let done):
                    shown = done
                    // In a terminal one line redraws; in a log every stage is a line.
                    Files.write(terminal ? "\r\u{1B}[K" + bar(done) : tr("stage \(done)/\(stages)") + "\n", to: 1)
                case .retry(let hint):
                    let text = Message.retry(hint).text
                    Files.write(terminal ? "\r\u{1B}[K\(text)\n" + bar(shown) : "\(text)\n", to: 1)
                }
            }
        } catch {
            if terminal { Files.write("\n", to: 1) }
            switch error {
            case .cancelled: throw .interrupted(tr("enroll: interrupted; nothing was stored"))
            case .duplicate:
                throw .failed(tr("enroll: the sensor already holds this finger (another user's, or another of \(user)'s fingers); nothing was stored"))
            default: throw .failed(tr("enroll: \(error); nothing was stored"))
            }
        }
        if terminal { Files.write("\n", to: 1) }
        return print
    }
}
