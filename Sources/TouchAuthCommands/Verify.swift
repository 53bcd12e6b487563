import Fingerprint
import Glibc
import TouchAuthCore

/// `touchauth verify`: the "try it" button. One scan against the user's prints on the sensor
/// that has them, and which finger matched. No PAM, no strikes, no trust rules.
enum Verify {
    static func run(_ options: [String: String]) throws(CommandError) {
        let (user, _) = try Caller.target(options, "verify", verb: "verify")
        try Caller.requireRoot("verify")
        let config = try Settings.load(configPath: options["config"])
        let (finger, device) = try scan(user: user, config: config, device: options["device"], command: "verify")
        System.write("Matched \(finger.name) of \(user) on \(device)\n", to: 1)
    }

    /// Opens the sensor with the user's prints and scans until a finger matches or does not:
    /// one scan with identify (match-on-chip sensors, several prints), else one scan per print
    /// in turn, each finger named (never only the first, as fprintd). Retry hints are shown
    /// and scanned again. Returns the finger matched and the sensor's label; throws otherwise.
    static func scan(user: UserName, config: Config, device named: String?, command: String) throws(CommandError) -> (Finger, String) {
        Sensor.configure(config)
        let context = Context()
        let store = PrintStore(root: config.printDir)
        let device = try Sensor.choose(
            Sensor.devices(context, command), named: named, store: store, user: user, command: command, needsPrints: true)
        let prints = try store.prints(user: user, device: device)
        guard !prints.isEmpty else {
            throw .failed("\(command): \(user) has no usable prints on \(Sensor.label(device)) (see touchauth list)")
        }
        let cancellable = Cancellable(milliseconds: UInt32(config.timeout) * 1000)
        cancellable.cancelOnInterrupt()
        do {
            try device.open(cancellable)
        } catch {
            throw .unavailable("\(command): cannot open \(device.name): \(error)")
        }
        defer { device.close() }
        let identify = device.canIdentify
        var turn = 0
        System.write(
            (identify || prints.count == 1 ? Message.placeFinger : .placeNamedFinger(prints[0].0)).text + "\n", to: 1)
        while true {
            let matched: Bool
            do throws(FingerprintError) {
                if identify {
                    if let index = try device.identify(prints.map(\.1), cancellable) {
                        return (prints[index].0, Sensor.label(device))
                    }
                    matched = false
                } else {
                    matched = try device.verify(prints[turn].1, cancellable)
                }
            } catch {
                switch error {
                case .retry(let hint):
                    System.write(Message.retry(hint).text + "\n", to: 1)
                    continue
                case .cancelled:
                    throw .interrupted("\(command): cancelled (Ctrl-C, or no finger within \(config.timeout) s)")
                default: throw .unavailable("\(command): \(Sensor.label(device)): \(error)")
                }
            }
            if matched { return (prints[turn].0, Sensor.label(device)) }
            turn += 1
            guard !identify, turn < prints.count else {
                throw .failed("\(command): not recognized: no enrolled finger of \(user) matched")
            }
            System.write(Message.placeNamedFinger(prints[turn].0).text + "\n", to: 1)
        }
    }
}
