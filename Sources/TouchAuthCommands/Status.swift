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
        let report = Report(try Config.load(configPath: options.config), user: user, uid: uid)
        Files.write(options.json ? report.json : report.text, to: 1)
    }

    /// What status says of one user, gathered once, then written as text or as JSON.
    struct Report {
        let user: UserName, uid: uid_t, threshold: Int
        let fingers: [(String, String, Finger)]
        let state: UserState, problem: String?, disabled: Bool, locked: Bool
        let next: String, reason: LocalizedText?
        let atHand: (lidClosed: Bool, readers: [ReadersAtHand.Entry], problem: String?)
        let armed: Result<[ArmedRequest], FileError>, now: Int

        init(_ config: Config, user: UserName, uid: uid_t) {
            (self.user, self.uid, threshold) = (user, uid, config.lockoutThreshold)
            let prints = PrintStore(root: config.printDir)
            fingers = prints.enrolled(user: user)
            do {
                state = try StateStore(directory: config.stateDir).load(uid)
                problem = nil
            } catch {
                (state, problem) = (UserState(), error.description)
            }
            let facts = SystemFacts.gather(config, user: user, prints: prints)
            disabled = StateStore(directory: config.stateDir).isDisabled(uid)
            // `next` and `reason` are English in --json (scripts read them), translated in the text.
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
            atHand = ReadersAtHand.survey(config, user: user, devices: context.devices())
            locked = problem != nil || TrustPolicy(config).isLockedOut(state, now: facts.now)
            // The requests armed now, any user's (docs/POLICY.md#one-request-at-a-time).
            armed = ArmedRequests.survey()
            now = ArmedRegistry.boottimeMilliseconds()
        }

        var json: String {
            var fields: [String] = []
            fields.append("\"user\":\(Status.json(user.value))")
            fields.append("\"uid\":\(uid)")
            fields.append("\"fingers\":[" + fingers.map { "{\"finger\":\(Status.json($0.2.name)),\"driver\":\(Status.json($0.0)),\"device\":\(Status.json($0.1))}" }.joined(separator: ",") + "]")
            fields.append("\"enabled\":\(!disabled)")
            fields.append("\"strikes\":\(state.strikes)")
            fields.append("\"lockout_threshold\":\(threshold)")
            fields.append("\"locked\":\(locked)")
            fields.append("\"locked_since\":\(state.lockedAt.map(String.init) ?? "null")")
            fields.append("\"state\":\(Status.json(problem == nil ? "ok" : "unusable"))")
            fields.append("\"next\":\(Status.json(next))")
            fields.append("\"reason\":\(reason.map { Status.json($0.english) } ?? "null")")
            fields.append("\"lid_closed\":\(atHand.lidClosed)")
            fields.append("\"readers\":[" + atHand.readers.map {
                "{\"reader\":\(Status.json($0.label)),\"placement\":\(Status.json($0.placement.rawValue)),\"fingers\":[" + $0.fingers.map(Status.json).joined(separator: ",") + "],\"used\":\($0.used)}"
            }.joined(separator: ",") + "]")
            switch armed {
            case .success(let entries): fields.append("\"armed\":[" + entries.map { ArmedRequests.json($0, now: now) }.joined(separator: ",") + "]")
            case .failure: fields.append("\"armed\":null")
            }
            return "{" + fields.joined(separator: ",") + "}\n"
        }

        var text: String {
            let list = fingers.map { "\($0.2.name) (\($0.0)/\($0.1))" }.joined(separator: ", ")
            var out = "\(user) (uid \(uid))\n"
            out += "  " + (fingers.isEmpty ? tr("fingers: none") : tr("fingers: \(list)")) + "\n"
            if let problem {
                out += "  " + tr("state: UNUSABLE: \(problem)") + "\n"
            }
            out += "  " + tr("strikes: \(state.strikes) in a row (locks at \(threshold))") + "\n"
            let since = state.lockedAt.map(Status.date)
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
            return out
        }
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
