import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth status [USER] [--json]`: enrolled fingers, strikes, the lockout, and what the
/// next authentication will ask for and why.
enum Status {
    static func run(_ options: Options) throws(CommandError) {
        guard geteuid() == 0 else { throw .failed("status: must be run as root (the state is root's)") }
        let name = options.user ?? Accounts.name(of: getuid()) ?? ""
        guard let (user, uid) = Accounts.lookUp(name) else { throw .failed("status: no such user '\(name)'") }
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
        let facts = Facts.gather(config, user: user, prints: prints)
        let disabled = StateStore(directory: config.stateDir).isDisabled(uid)
        let next: String
        let reason: String?
        if disabled {
            (next, reason) = ("password", "fingerprint turned off (touchauth enable turns it on)")
        } else if problem != nil {
            (next, reason) = ("password", "state unusable (treated as locked; `touchauth unlock \(user)` repairs it)")
        } else if fingers.isEmpty {
            (next, reason) = ("password", "no fingers enrolled")
        } else {
            switch TrustPolicy(config).decide(state, facts) {
            case .scan: (next, reason) = ("fingerprint", nil)
            case .refuse(_, let why): (next, reason) = ("password", Message.refused(why).text)
            }
        }
        let locked = problem != nil || TrustPolicy(config).isLockedOut(state, now: facts.now)
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
            fields.append("\"reason\":\(reason.map(json) ?? "null")")
            Files.write("{" + fields.joined(separator: ",") + "}\n", to: 1)
            return
        }
        var out = "\(user) (uid \(uid))\n"
        out += "  fingers: " + (fingers.isEmpty ? "none" : fingers.map { "\($0.2.name) (\($0.0)/\($0.1))" }.joined(separator: ", ")) + "\n"
        if let problem {
            out += "  state: UNUSABLE: \(problem)\n"
        }
        out += "  strikes: \(state.strikes) in a row (locks at \(config.lockoutThreshold))\n"
        out += "  locked: " + (locked ? "yes" + (state.lockedAt.map { ", since \(date($0))" } ?? "") : "no") + "\n"
        out += "  next authentication: \(next)" + (reason.map { ": \($0)" } ?? "") + "\n"
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
