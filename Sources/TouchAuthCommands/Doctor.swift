// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth doctor`: one line per check, OK / WARN / FAIL, in plain words, then the summary
/// line (DoctorSummary.swift). Exits non-zero when anything FAILs. Reads only; changes nothing.
/// The level words and the check names are keys a script may grep: never translated; the
/// details are (`tr`).
enum Doctor {
    enum Level: String, Comparable {
        case ok = "OK", warn = "WARN", fail = "FAIL"
        private var rank: Int { self == .ok ? 0 : self == .warn ? 1 : 2 }
        static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
    }

    struct Finding {
        let level: Level
        let check: String
        let detail: String
    }

    static func run(_ options: Options) throws(CommandError) {
        try Caller.requireRoot("doctor")
        var findings: [Finding] = []
        func note(_ level: Level, _ check: String, _ detail: String) { findings.append(Finding(level: level, check: check, detail: detail)) }

        note(.ok, "version", "touchauth \(Release.version)")
        let config = configCheck(options.config, note)
        directoryChecks(config, note)
        fileCheck("helper", config.helper, executable: true, note)
        let pamDir = securityDir()
        fileCheck("module", pamDir.map { "\($0)/pam_touchauth.so" } ?? tr("pam_touchauth.so (no PAM module directory found)"), executable: false, note)
        let services = pamStacks(options.pamDir ?? "/etc/pam.d", note)
        presence(note)

        let name = options.user ?? Accounts.name(of: Caller.defaultUID) ?? "root"
        guard let (user, uid) = Accounts.lookUp(name) else { throw .failed(tr("doctor: no such user '\(name)'")) }
        let (sensors, prints) = sensorChecks(config, user: user, note)
        let (lockout, enabled) = userChecks(config, user: user, uid: uid, note)

        let summary = Summary(
            findings: findings, user: user.value, prints: prints, sensors: sensors, services: services, lockout: lockout,
            enabled: enabled)
        if options.json {
            let items = findings.map {
                "{\"level\":\(Status.json($0.level.rawValue)),\"check\":\(Status.json($0.check)),\"detail\":\(Status.json($0.detail))}"
            }
            Files.write("[" + (items + [summary.json]).joined(separator: ",") + "]\n", to: 1)
        } else {
            Files.write(findings.map { "\($0.level.rawValue.padding(4)) \($0.check): \($0.detail)\n" }.joined() + summary.line + "\n", to: 1)
        }
        let failed = findings.filter { $0.level == .fail }.count
        if failed > 0 { throw .failed(failed == 1 ? tr("doctor: 1 check FAILED") : tr("doctor: \(failed) checks FAILED")) }
    }

    /// Directories that decide authentication: root's, written by root alone.
    static func directoryChecks(_ config: Config, _ note: (Level, String, String) -> Void) {
        for (what, dir, missingLevel) in [("print_dir", config.printDir, Level.warn), ("state_dir", config.stateDir, .ok)] {
            var st = stat()
            if lstat(dir, &st) != 0 {
                note(missingLevel, what, tr("\(dir) does not exist yet (created on first enrolment or strike)"))
            } else if st.st_mode & S_IFMT != S_IFDIR {
                note(.fail, what, tr("\(dir) is not a directory"))
            } else if let why = Files.distrust(st) {
                note(.fail, what, tr("\(dir) is \(why): refused by the helper"))
            } else if st.st_mode & 0o077 == 0 {
                note(.ok, what, tr("\(dir) root \(mode(st)), private"))
            } else {
                note(.ok, what, tr("\(dir) root \(mode(st)), readable by others"))
            }
        }
    }

    /// The sensors, and the user's prints on them. Returns the sensors' labels and the count of
    /// the user's prints, for the summary.
    static func sensorChecks(_ config: Config, user: UserName, _ note: (Level, String, String) -> Void) -> ([String], Int) {
        Sensor.configure(config)
        let context = Context()
        let devices = context.devices()
        if devices.isEmpty { note(.fail, "sensor", tr("no fingerprint reader found (is it supported by libfprint? lsusb; fprintd-list)")) }
        for device in devices {
            let identify = device.canIdentify ? tr("yes") : tr("no")
            let storage = device.hasStorage ? tr("yes") : tr("no")
            note(.ok, "sensor", tr("\(Sensor.label(device)): \(device.name); \(device.scanType); identify: \(identify); storage on chip: \(storage)"))
        }
        let store = PrintStore(root: config.printDir)
        let entries = ListPrints.check(
            store.enrolled(user: user).map { ListPrints.Entry(user: user, finger: $0.2, driver: $0.0, deviceID: $0.1) }, config: config)
        if entries.isEmpty { note(.warn, "prints", tr("\(user) has no fingers enrolled (touchauth enroll --user \(user))")) }
        for entry in entries {
            let (label, finger) = ("\(entry.driver)/\(entry.deviceID)", entry.finger.name)
            if !devices.contains(where: { Sensor.label($0) == label }) {
                note(.warn, "prints", tr("\(user): \(finger) on \(label), which is not connected"))
            } else if entry.onSensor == false {
                note(.warn, "prints", tr("\(user): \(finger) on \(label): MISSING from the sensor's storage (touchauth enroll --replace --finger \(finger))"))
            } else if entry.onSensor == true {
                note(.ok, "prints", tr("\(user): \(finger) on \(label) (on the sensor)"))
            } else {
                note(.ok, "prints", tr("\(user): \(finger) on \(label)"))
            }
        }
        return (devices.map(Sensor.label), entries.count)
    }

    /// The user's switch, strikes and lockout. Returns the summary's `lockout` and `enabled`.
    static func userChecks(
        _ config: Config, user: UserName, uid: uid_t, _ note: (Level, String, String) -> Void
    ) -> (lockout: String, enabled: Bool) {
        let states = StateStore(directory: config.stateDir)
        let enabled = !states.isDisabled(uid)
        if !enabled { note(.warn, "switch", tr("\(user): fingerprint turned off (touchauth enable --user \(user))")) }
        do {
            let state = try states.load(uid)
            if TrustPolicy(config).isLockedOut(state, now: Facts.now()) {
                note(.warn, "lockout", tr("\(user): locked after \(state.strikes) failures in a row (the password, or touchauth unlock \(user))"))
                return ("locked", enabled)
            }
            note(.ok, "lockout", tr("\(user): not locked (\(state.strikes) of \(config.lockoutThreshold) strikes)"))
            return ("no", enabled)
        } catch {
            note(.fail, "lockout", tr("\(user): state unusable, treated as locked: \(error) (touchauth unlock \(user))"))
            return ("unusable", enabled)
        }
    }

    /// The config: trusted, parsed, no unknown keys. The settings read, for the other checks.
    static func configCheck(_ explicit: String?, _ note: (Level, String, String) -> Void) -> Config {
        let path = explicit ?? Config.defaultPath
        let reading = Config.read(file: path)
        if let failure = reading.failure, failure.isMissingFile, explicit == nil {
            note(.ok, "config", tr("\(path) absent: built-in defaults"))
        } else if let failure = reading.failure {
            note(.fail, "config", tr("\(failure) (the module falls back to the password)"))
        } else {
            note(.ok, "config", tr("\(path): root-owned, parsed"))
            for (key, _) in reading.unknown { note(.warn, "config", tr("\(path): unknown key '\(key)' (ignored; see man touchauth.conf)")) }
        }
        return reading.config
    }

    static func mode(_ st: stat) -> String { "0" + String(st.st_mode & 0o7777, radix: 8) }

    static func fileCheck(_ what: String, _ path: String, executable: Bool, _ note: (Level, String, String) -> Void) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            note(.fail, what, "\(path): \(String(cString: strerror(errno)))")
            return
        }
        if st.st_mode & S_IFMT != S_IFREG {
            note(.fail, what, tr("\(path) is not a regular file"))
        } else if let why = Files.distrust(st) {
            note(.fail, what, tr("\(path) is \(why) (the module refuses it)"))
        } else if executable && st.st_mode & 0o111 == 0 {
            note(.fail, what, tr("\(path) is not executable"))
        } else {
            note(.ok, what, "\(path) root \(mode(st))")
        }
    }

    /// Where PAM modules live: the directory that holds pam_unix.so (multiarch on Debian).
    static func securityDir() -> String? {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: name.machine) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let candidates = ["/usr/lib/\(machine)-linux-gnu/security", "/lib/\(machine)-linux-gnu/security", "/usr/lib64/security",
                          "/usr/lib/security", "/lib/security"]
        return candidates.first { access("\($0)/pam_unix.so", F_OK) == 0 }
    }

    /// Which presence signals the module has (pam/presence.c): logind is judged running when
    /// seat0 exists under /run/systemd/seats, as the module judges it. `root` is for the tests.
    static func presence(root: String = "", _ note: (Level, String, String) -> Void) {
        if access("\(root)/run/systemd/seats/seat0", F_OK) == 0 {
            note(.ok, "presence", tr("logind: running, sessions are checked"))
        } else {
            note(.ok, "presence", tr("logind: not running: remote logins and terminal rules only"))
        }
    }

    /// Modules that check a password (the primary modules of Debian's common-auth).
    static let passwordModules = ["pam_unix", "pam_sss", "pam_krb5", "pam_ldap", "pam_winbind"]

    /// Which services authenticate with the module, and whether their stacks make sense:
    /// touchauth's auth line before pam_unix's (else the password is asked first), and an
    /// `auth optional pam_touchauth.so authsucc` line that only a succeeded password reaches
    /// (else only `touchauth unlock` ends a lockout; one a failed password reaches too would let
    /// any password attempt lift it). Old `account ... pam_touchauth.so` lines clear nothing now.
    /// Includes count: with pam-auth-update the lines live in Debian's `common-*` fragments
    /// (the finger in the Primary block, the authsucc line in the Additional block), which are
    /// judged as part of each service that includes them, not on their own. A service whose only
    /// touchauth line is authsucc or account (cron) authenticates with something else: nothing to say.
    /// Returns how many services authenticate with the module.
    @discardableResult
    static func pamStacks(_ dir: String, _ note: (Level, String, String) -> Void) -> Int {
        var users = 0
        for service in Files.listDirectory(dir).sorted()
        where !service.hasPrefix(".") && !service.hasPrefix("common-") && !service.contains(".dpkg-") {
            let stack = expand(dir, service, depth: 0)
            let auth = stack.filter { $0.type == "auth" }
            guard let ours = auth.firstIndex(where: { $0.isOurs && !$0.isRecorder }) else { continue }
            users += 1
            let path = "\(dir)/\(service)"
            var warnings: [String] = []
            let unix = auth.firstIndex { $0.module.contains("pam_unix") }
            if let unix, unix < ours {
                warnings.append(tr("pam_unix comes before pam_touchauth: the password is asked first"))
            }
            let password = auth.indices.first { $0 > ours && auth[$0].isPassword }
            let recorders = Set(auth.indices.filter { auth[$0].isRecorder })
            let fromCommon = auth[ours].file.hasPrefix("common-")
            if let password {
                let name = auth[password].moduleName
                if recorders.isEmpty {
                    warnings.append(
                        fromCommon
                            ? tr("no 'auth optional pam_touchauth.so authsucc' line after \(name): a password will not lift a fingerprint lockout (only touchauth unlock does); pam-auth-update --enable touchauth-unlock")
                            : tr("no 'auth optional pam_touchauth.so authsucc' line after \(name): a password will not lift a fingerprint lockout (only touchauth unlock does); add it right after @include common-auth"))
                } else if reached(auth, password: password, succeeds: true).isDisjoint(with: recorders) {
                    warnings.append(tr("the authsucc line is never reached after \(name) succeeded (a 'sufficient' or 'done' ends the stack first): a password will not lift a lockout; put it right after @include common-auth"))
                } else if !reached(auth, password: password, succeeds: false).isDisjoint(with: recorders) {
                    warnings.append(tr("the authsucc line is reached when \(name) FAILED too (after 'required', nothing stops the stack): a wrong password would lift a lockout; put it right after @include common-auth (after its requisite pam_deny.so)"))
                }
            }
            if let old = stack.first(where: { $0.type == "account" && $0.isOurs }) {
                warnings.append(
                    old.file.hasPrefix("common-")
                        ? tr("'account ... pam_touchauth.so' (in \(old.file)) no longer clears anything: replace it with 'auth optional pam_touchauth.so authsucc' right after @include common-auth (pam-auth-update --package applies the new profiles)")
                        : tr("'account ... pam_touchauth.so' (in \(old.file)) no longer clears anything: replace it with 'auth optional pam_touchauth.so authsucc' right after @include common-auth"))
            }
            for warning in warnings { note(.warn, "pam", "\(path): \(warning)") }
            if warnings.isEmpty {
                if let password {
                    note(.ok, "pam", tr("\(path): touchauth before the password (\(auth[password].moduleName)), authsucc after it: a succeeded password lifts a lockout"))
                } else {
                    note(.ok, "pam", tr("\(path): touchauth, no password in this stack"))
                }
            }
        }
        if users == 0 { note(.warn, "pam", tr("no service in \(dir) uses pam_touchauth.so (see README: PAM lines, or pam-auth-update)")) }
        return users
    }

    /// The indices of the auth lines PAM runs when the password module at `password` succeeds or
    /// fails. The other modules: touchauth's finger line is unavailable (the case that matters),
    /// pam_deny fails, pam_permit succeeds, every other module is ignored (PAM_IGNORE).
    /// Jumps count lines of the expanded stack, as PAM counts them through `include`.
    static func reached(_ auth: [Line], password: Int, succeeds: Bool) -> Set<Int> {
        var ran: Set<Int> = []
        var index = 0
        var steps = 0
        while index < auth.count, steps < 1000 {
            steps += 1
            let line = auth[index]
            ran.insert(index)
            let value: String
            if index == password {
                value = succeeds ? "success" : "auth_err"
            } else if line.isOurs {
                value = line.isRecorder ? "ignore" : "authinfo_unavail"
            } else if line.moduleName == "pam_deny" || line.isPassword {
                value = "auth_err"
            } else if line.moduleName == "pam_permit" {
                value = "success"
            } else {
                value = "ignore"
            }
            switch line.action(for: value) {
            case "die", "done": return ran
            case let jump where Int(jump) != nil: index += 1 + max(0, Int(jump)!)
            default: index += 1
            }
        }
        return ran
    }

    struct Line {
        let type: String
        let control: String
        let module: String
        let args: [String]
        /// The file the line is in (a service or an included fragment), for the messages.
        let file: String

        var moduleName: String {
            let base = module.split(separator: "/").last.map(String.init) ?? module
            return base.hasSuffix(".so") ? String(base.dropLast(3)) : base
        }
        var isOurs: Bool { moduleName == "pam_touchauth" }
        /// `auth optional pam_touchauth.so authsucc`: records a succeeded password.
        var isRecorder: Bool { isOurs && args.first == "authsucc" }
        var isPassword: Bool { Doctor.passwordModules.contains(moduleName) }

        /// PAM's action for a module's return value under this line's control.
        func action(for value: String) -> String {
            var table: [String: String]
            switch control {
            case "required": table = ["success": "ok", "new_authtok_reqd": "ok", "ignore": "ignore", "default": "bad"]
            case "requisite": table = ["success": "ok", "new_authtok_reqd": "ok", "ignore": "ignore", "default": "die"]
            case "sufficient": table = ["success": "done", "new_authtok_reqd": "done", "default": "ignore"]
            case "optional": table = ["success": "ok", "new_authtok_reqd": "ok", "default": "ignore"]
            default:
                table = [:]
                for pair in control.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2 { table[parts[0].lowercased()] = parts[1].lowercased() }
                }
            }
            return table[value] ?? table["default"] ?? "bad"
        }
    }

    static func lines(of path: String) -> [String] {
        guard let bytes = try? Files.readTrustedFile(path, maxBytes: 256 * 1024) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { line in
            String(line.prefix { $0 != "#" }).trimmingSpaces
        }.filter { !$0.isEmpty }
    }

    /// A service's lines with `@include`, `include` and `substack` expanded (a few levels).
    static func expand(_ dir: String, _ service: String, depth: Int) -> [Line] {
        guard depth < 8 else { return [] }
        var out: [Line] = []
        for line in lines(of: "\(dir)/\(service)") {
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.first == "@include", words.count > 1 {
                out += expand(dir, words[1], depth: depth + 1)
                continue
            }
            guard words.count >= 3 else { continue }
            let type = words[0].hasPrefix("-") ? String(words[0].dropFirst()) : words[0]
            if words[1].hasPrefix("[") {  // [value=action ...] may hold spaces
                while words.count > 2, !words[1].hasSuffix("]") { words[1] += " " + words.remove(at: 2) }
            }
            if words[1] == "include" || words[1] == "substack" {
                out += expand(dir, words[2], depth: depth + 1).filter { $0.type == type }
            } else if words.count >= 3 {
                out.append(Line(type: type, control: words[1], module: words[2], args: Array(words.dropFirst(3)), file: service))
            }
        }
        return out
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
