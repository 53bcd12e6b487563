// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth status [USER] [--json]`: enrolled fingers, strikes, the lockout, and what the
/// next authentication will ask for and why.
enum Status {
    static func run(_ options: Options) throws(CommandError) {
        guard geteuid() == 0 else { throw .failed(tr("status: must be run as root (the state is root's)")) }
        let name = options.user ?? Accounts.name(of: getuid()) ?? ""
        guard let (user, uid) = Accounts.lookUp(name) else { throw .failed(tr("status: no such user '\(name)'")) }
        let config = try Config.load(configPath: options.config)
        let prints = PrintStore(root: config.printDir)
        let fingers = prints.enrolled(user: user)
        var problem: String?
        var state = UserState()
        do {
            state = try StateStore(directory: config.stateDir).load(uid)
        } catch {
            problem = error.description
        }
        let facts = SystemFacts.gather(config, user: user, prints: prints)
        let disabled = StateStore(directory: config.stateDir).isDisabled(uid)
        // `next` and `reason` are English in --json (scripts read them), translated in the text.
        let next: String
        let reason: LocalizedText?
        if disabled {
            (next, reason) = ("password", translatable("fingerprint turned off (touchauth enable turns it on)"))
        } else if problem != nil {
            (next, reason) = ("password", translatable("state unusable (treated as locked; `touchauth unlock \(user)` repairs it)"))
        } else if fingers.isEmpty {
            (next, reason) = ("password", translatable("no fingers enrolled"))
        } else {
            switch TrustPolicy(config).decide(state, facts) {
            case .scan: (next, reason) = ("fingerprint", nil)
            case .refuse(_, let why): (next, reason) = ("password", Message.refused(why).template)
            }
        }
        // The readers a prompt would arm now (docs/POLICY.md#the-lid-and-the-readers-at-hand).
        Sensor.configure(config)
        let context = Context()
        let atHand = ReadersAtHand.survey(config, user: user, devices: context.devices())
        let locked = problem != nil || TrustPolicy(config).isLockedOut(state, now: facts.now)
        // The requests armed now, any user's (docs/POLICY.md#one-request-at-a-time).
        let armed = ArmedRequests.survey()
        let now = ArmedRegistry.boottimeMilliseconds()
        if options.json {
            var fields: [String] = []
            fields.append("\"user\":\(json(user.value))")
            fields.append("\"uid\":\(uid)")
            fields.append("\"fingers\":[" + fingers.map { "{\"finger\":\(json($0.2.name)),\"driver\":\(json($0.0)),\"device\":\(json($0.1))}" }.joined(separator: ",") + "]")
            fields.append("\"enabled\":\(!disabled)")
            fields.append("\"strikes\":\(state.strikes)")
            fields.append("\"lockout_threshold\":\(config.lockoutThreshold)")
            fields.append("\"locked\":\(locked)")
            fields.append("\"locked_since\":\(state.lockedAt.map(String.init) ?? "null")")
            fields.append("\"state\":\(json(problem == nil ? "ok" : "unusable"))")
            fields.append("\"next\":\(json(next))")
            fields.append("\"reason\":\(reason.map { json($0.english) } ?? "null")")
            fields.append("\"lid_closed\":\(atHand.lidClosed)")
            fields.append("\"readers\":[" + atHand.readers.map {
                "{\"reader\":\(json($0.label)),\"placement\":\(json($0.placement.rawValue)),\"fingers\":[" + $0.fingers.map(json).joined(separator: ",") + "],\"used\":\($0.used)}"
            }.joined(separator: ",") + "]")
            switch armed {
            case .success(let entries): fields.append("\"armed\":[" + entries.map { ArmedRequests.json($0, now: now) }.joined(separator: ",") + "]")
            case .failure: fields.append("\"armed\":null")
            }
            Files.write("{" + fields.joined(separator: ",") + "}\n", to: 1)
            return
        }
        let list = fingers.map { "\($0.2.name) (\($0.0)/\($0.1))" }.joined(separator: ", ")
        var out = "\(user) (uid \(uid))\n"
        out += "  " + (fingers.isEmpty ? tr("fingers: none") : tr("fingers: \(list)")) + "\n"
        if let problem {
            out += "  " + tr("state: UNUSABLE: \(problem)") + "\n"
        }
        out += "  " + tr("strikes: \(state.strikes) in a row (locks at \(config.lockoutThreshold))") + "\n"
        let since = state.lockedAt.map(date)
        out += "  " + (!locked ? tr("locked: no") : since.map { tr("locked: yes, since \($0)") } ?? tr("locked: yes")) + "\n"
        let method = next == "password" ? tr("password") : tr("fingerprint")
        out += "  " + (reason.map { tr("next authentication: \(method): \(tr($0))") } ?? tr("next authentication: \(method)")) + "\n"
        out += "  " + ReadersAtHand.lidLine(atHand.lidClosed) + "\n"
        for reader in atHand.readers { out += "  " + reader.text + "\n" }
        switch armed {
        case .success(let entries) where entries.isEmpty: out += "  " + tr("armed: none") + "\n"
        case .success(let entries): for entry in entries { out += "  " + ArmedRequests.text(entry, now: now) + "\n" }
        case .failure(let error): out += "  " + tr("armed: unknown (\(error.description))") + "\n"
        }
        Files.write(out, to: 1)
    }

    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func date(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &parts)
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
