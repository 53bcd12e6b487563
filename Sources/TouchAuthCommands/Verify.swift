// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth verify`: the "try it" button. One scan against the user's prints on the sensor
/// that has them, and which finger matched. No PAM, no strikes, no trust rules.
enum Verify {
    static func run(_ options: Options) throws(CommandError) {
        let (user, _) = try Caller.target(options, "verify", denied: translatable("only root may verify another user"))
        try Caller.requireRoot("verify")
        let config = try Config.load(configPath: options.config)
        let (finger, device) = try scan(user: user, config: config, device: options.device, command: "verify")
        Files.write(tr("Matched \(finger.name) of \(user) on \(device)") + "\n", to: 1)
    }

    /// Opens the sensor with the user's prints and runs the scan loop's check (ScanLoop, no
    /// strikes) until a finger matches or does not: one scan with identify (match-on-chip
    /// sensors), else one scan per print in turn, each finger named (never only the first, as
    /// fprintd). Retry hints are shown and scanned again. Returns the finger matched and the
    /// sensor's label; throws otherwise.
    static func scan(user: UserName, config: Config, device named: String?, command: String) throws(CommandError) -> (Finger, String) {
        Sensor.configure(config)
        let context = Context()
        let store = PrintStore(root: config.printDir)
        let (device, prints) = try Sensor.choose(
            for: command, context, named: named, user: user, store: store, need: .enrolledFinger)
        guard !prints.isEmpty else {
            throw .failed(tr("\(command): \(user) has no usable prints on \(Sensor.label(device)) (see touchauth list)"))
        }
        let cancellable = Cancellable(milliseconds: UInt32(config.timeout) * 1000)
        cancellable.cancelOnInterrupt()
        do {
            try device.open(cancellable)
        } catch {
            throw .unavailable(tr("\(command): cannot open \(device.name): \(error)"))
        }
        defer { device.close() }
        var loop = ScanLoop(.check, fingers: prints.map(\.0), canIdentify: device.canIdentify)
        Files.write(loop.prompt.text + "\n", to: 1)
        var failure: FingerprintError?
        let ending = loop.run(say: { line in
            // A check logs nothing: its lines are the hints and the finger expected next.
            if case .show(let message) = line { Files.write(message.text + "\n", to: 1) }
        }, perform: { action in
            guard case .scan(let target) = action else { return .promptEnded }  // a check charges nothing
            let (verdict, error) = Sensor.scan(device, target, prints, cancellable)
            failure = error
            return .scanned(verdict)
        })
        switch ending {
        case .matched(let index): return (prints[index].0, Sensor.label(device))
        case .notRecognized: throw .failed(tr("\(command): not recognized: no enrolled finger of \(user) matched"))
        case .timedOut, .promptEnded:
            throw .interrupted(tr("\(command): cancelled (Ctrl-C, or no finger within \(config.timeout) s)"))
        case .sensorFailed, .lockedOut:
            throw .unavailable("\(command): \(Sensor.label(device)): \(failure.map { "\($0)" } ?? tr("the scan loop ended"))")
        }
    }
}
