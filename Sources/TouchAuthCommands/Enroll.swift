import Fingerprint
import Glibc
import TouchAuthCore

/// `touchauth enroll`: scans a finger until the sensor has all its stages, then stores the
/// print in fprintd's layout. The file appears only when enrolment completed (written
/// atomically), so an interrupted enrolment leaves nothing behind.
enum Enroll {
    static func run(_ options: [String: String]) throws(CommandError) {
        guard geteuid() == 0 else { throw .failed("enroll: must be run as root") }
        guard let name = options["user"] else { throw .usage("enroll: --user is required") }
        guard let (user, _) = System.lookUpUser(name) else { throw .failed("enroll: no such user '\(name)'") }
        let fingerName = options["finger"] ?? Finger.rightIndex.name
        guard let finger = Finger(name: fingerName) else {
            throw .usage("enroll: unknown finger '\(fingerName)' (one of: \(Finger.allCases.map(\.name).joined(separator: ", ")))")
        }
        let config = try Settings.load(configPath: options["config"])
        Sensor.configure(config)
        let context = Context()
        guard let device = context.devices().first else { throw .unavailable("enroll: no fingerprint reader found") }
        let store = PrintStore(root: config.printDir)
        if options["replace"] == nil,
            store.enrolled(user: user).contains(where: { $0 == (device.driver, device.deviceID, finger) })
        {
            throw .failed("enroll: \(finger.name) is already enrolled for \(user) (use --replace)")
        }
        let cancellable = Cancellable()
        do {
            try device.open(cancellable)
        } catch {
            throw .unavailable("enroll: cannot open \(device.name): \(error)")
        }
        defer { device.close() }
        let stages = device.enrollStages
        System.write("Enrolling \(finger.name) for \(user) on \(device.name): place your finger on the reader \(stages) times\n", to: 1)
        let print: Print
        do {
            print = try device.enroll(Print(templateFor: device, finger: finger, user: user.value), cancellable) { progress in
                switch progress {
                case .stage(let done): System.write("stage \(done)/\(stages)\n", to: 1)
                case .retry: System.write("could not read the finger, place it again\n", to: 1)
                }
            }
        } catch {
            throw .failed("enroll: \(error)")
        }
        let path = try store.save(print, user: user, finger: finger, device: device)
        System.write("Enrolled \(finger.name) for \(user) (\(path))\n", to: 1)
    }
}
