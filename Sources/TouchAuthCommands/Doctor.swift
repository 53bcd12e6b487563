// SPDX-License-Identifier: Apache-2.0
import CConfig
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
        lockers(options.pamDir ?? "/etc/pam.d", helper: config.helper, note)
        keyrings(options.pamDir ?? "/etc/pam.d", moduleDir: pamDir, allowed: config.fingerAtKeyringLogin, note)
        gnomeScreens(options.pamDir ?? "/etc/pam.d", moduleDir: pamDir, note)
        presence(terminalWithoutLogind: config.terminalWithoutLogind, note)
        armedCheck(note)

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
        // Which readers a prompt would arm now (the lid, removable or inside, the prints).
        let atHand = ReadersAtHand.survey(config, user: user, devices: devices)
        note(.ok, "readers", ReadersAtHand.lidLine(atHand.lidClosed))
        for reader in atHand.readers { note(.ok, "readers", reader.text) }
        // fprintd scanning with one of them now: a prompt leaves it out (FprintdReaders.swift).
        for (device, held) in zip(devices, Readers.heldByFprintd(devices.map(\.name), Readers.askFprintd())) where held {
            note(.ok, "readers", tr("\(Sensor.label(device)): in use by fprintd now (an enrollment or a verification): a prompt leaves it out"))
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
            if TrustPolicy(config).isLockedOut(state, now: SystemFacts.now()) {
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

    /// Which presence signals the module has: whether logind runs, asked of the module's own
    /// probe (pam/logind.h); the rules that follow from it are pam/presence.c's. `root` is for
    /// the tests.
    static func presence(root: String = "", terminalWithoutLogind: Bool, _ note: (Level, String, String) -> Void) {
        if logind_running(root) != 0 {
            note(.ok, "presence", tr("logind: running, sessions are checked"))
        } else if terminalWithoutLogind {
            note(.ok, "presence", tr("logind: not running: a terminal counts (terminal_without_logind = yes): remote logins and terminal rules only"))
        } else {
            note(.ok, "presence", tr("logind: not running: a terminal does not count (terminal_without_logind = no): sudo, su and login ask for the password; display managers and screen lockers only"))
        }
    }

    /// The files authselect writes into /etc/pam.d for services to include (Fedora, RHEL):
    /// fragments, as Debian's `common-*`, judged as part of each service that includes them.
    static let fragments: Set<String> = ["system-auth", "password-auth", "fingerprint-auth", "smartcard-auth", "postlogin"]

    /// Which services authenticate with the module, and whether their stacks make sense, as
    /// the model walks them (TouchAuthCore's PamStack and PamReview: libpam's dispatch, a
    /// substack its own frame): the findings printed one line each. A service whose only
    /// touchauth line is authsucc or account (cron) authenticates with something else: nothing
    /// to say. Files are read only when root's (Files.readTrustedFile); an include names a file
    /// of `dir`, or a path. Returns how many services authenticate with the module.
    @discardableResult
    static func pamStacks(_ dir: String, _ note: (Level, String, String) -> Void) -> Int {
        var users = 0
        let read = reader(dir)
        for service in Files.listDirectory(dir).sorted()
        where !service.hasPrefix(".") && !service.hasPrefix("common-") && !service.contains(".dpkg-")
            && !fragments.contains(service) && !fragments.contains(where: { service == $0 + "-ac" }) {
            guard let findings = PamReview.review(service: service, read: read) else { continue }
            users += 1
            let path = "\(dir)/\(service)"
            for finding in findings {
                let (level, text) = say(finding, path)
                note(level, "pam", text)
            }
        }
        if users == 0 { note(.warn, "pam", tr("no service in \(dir) uses pam_touchauth.so (see README: PAM lines, or pam-auth-update)")) }
        return users
    }

    /// Reads a service of `dir` (or a path) for the model, when root's.
    static func reader(_ dir: String) -> (String) -> String? {
        return { name in
            guard let bytes = try? Files.readTrustedFile(name.hasPrefix("/") ? name : "\(dir)/\(name)", maxBytes: 256 * 1024)
            else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The lockers the module asks first (pam/clients.c): Enter on an empty field is the finger.
    static let firstAskingLockers: [String] = {
        var services: [String] = []
        while let service = client_asking_first(services.count) { services.append(String(cString: service)) }
        return services
    }()

    /// For each of those lockers whose service is installed (its package puts it in `dir`):
    /// whether the finger can work there. It runs PAM as the user, so the helper must be setuid
    /// root. Whether it is started with -e (an empty Enter never reaches PAM) cannot be seen from
    /// here: the README says it.
    static func lockers(_ dir: String, helper: String, _ note: (Level, String, String) -> Void) {
        for locker in firstAskingLockers where access("\(dir)/\(locker)", F_OK) == 0 {
            guard PamReview.review(service: locker, read: reader(dir)) != nil else {
                note(.ok, "locker", tr("\(locker): its stack has no pam_touchauth.so: the password only"))
                continue
            }
            var st = stat()
            if stat(helper, &st) == 0 && st.st_uid == 0 && st.st_mode & S_ISUID != 0 {
                note(.ok, "locker", tr("\(locker): Enter on the empty field is the finger, a typed password goes straight through (not with -e / --ignore-empty-password: then only the password)"))
            } else {
                note(.warn, "locker", tr("\(locker): no finger there: it runs PAM as the user and \(helper) is not setuid root (scripts/install.sh --setuid); the password works"))
            }
        }
    }

    /// The services that start a session (pam/clients.c) and use the module, whose stack
    /// unlocks a keyring or wallet with the password: the module's own rule (pam/keyring.c,
    /// `keyring_refusal`) says whether the finger is offered there, a line each.
    static func keyrings(_ dir: String, moduleDir: String?, allowed: Bool, _ note: (Level, String, String) -> Void) {
        for service in Files.listDirectory(dir).sorted() where client_starts_session(service) != 0 {
            guard PamReview.review(service: service, read: reader(dir)) != nil else { continue }
            var why = [CChar](repeating: 0, count: 1024)
            var offeredLocked: Int32 = 0
            var found = keyring_found()
            let (refused, scan) = (moduleDir ?? "").withCString { module -> (Bool, keyring_scan) in
                let dirs: [UnsafePointer<CChar>?] = moduleDir == nil ? [nil] : [module, nil]
                return dirs.withUnsafeBufferPointer { d in
                    (keyring_refusal(allowed ? 1 : 0, dir, d.baseAddress, service, &why, why.count, &offeredLocked) != nil,
                     keyring_stack_unlocks(dir, d.baseAddress, service, &found))
                }
            }
            let module = text(of: &found.module), file = text(of: &found.file), line = found.line
            if refused && scan == KEYRING_UNLOCKS {
                note(.ok, "keyring", tr("\(service): finger not offered here (keeps the keyring unlocked): \(module) (\(file) line \(line)) unlocks it with the password; finger_at_keyring_login = yes offers the finger"))
            } else if refused {
                note(.ok, "keyring", tr("\(service): finger not offered here (keeps the keyring unlocked): whether its stack unlocks a keyring cannot be told (\(file) unreadable, too big or too deep)"))
            } else if offeredLocked != 0 {
                note(.ok, "keyring", tr("\(service): finger offered: keyring stays locked (\(module), \(file) line \(line), gets no password from a finger; finger_at_keyring_login = yes)"))
            }
        }
    }

    /// A C string in a fixed array of a C struct.
    static func text<T>(of field: inout T) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// fprintd's D-Bus activation file: GNOME Shell asks the daemon (GetDefaultDevice) before it
    /// starts gdm-fingerprint, at the login screen and the lock screen.
    static let fprintdService = "/usr/share/dbus-1/system-services/net.reactivated.Fprint.service"

    /// GNOME's screens (gdm3 installed: its gdm-password in `dir`): they offer the finger only
    /// when fprintd's daemon answers; and gdm-fingerprint must run the module, not pam_fprintd,
    /// with every module it needs installed.
    static func gnomeScreens(_ dir: String, moduleDir: String?, _ note: (Level, String, String) -> Void) {
        guard access("\(dir)/gdm-password", F_OK) == 0 else { return }
        if access(fprintdService, F_OK) != 0 {
            note(.warn, "gnome", tr("GNOME's screens offer no finger without fprintd: GDM and the lock screen ask its daemon for a reader before they start gdm-fingerprint; apt install fprintd (the daemon only: our pam-auth-update profile keeps pam_fprintd out of the stacks)"))
        }
        guard access("\(dir)/gdm-fingerprint", F_OK) == 0,
              let stack = PamStack(service: "gdm-fingerprint", read: reader(dir)) else { return }
        for line in stack.lines where !line.module.isEmpty {
            let path = line.file.hasPrefix("/") ? line.file : "\(dir)/\(line.file)"
            if line.moduleName == "pam_fprintd" {
                note(.fail, "gnome", tr("\(path) line \(line.number): gdm-fingerprint still names \(line.module): GNOME's login screen would run fprintd's prompt, not touchauth's; put pam_touchauth.so in its place (examples/pam.d/gdm-fingerprint)"))
                continue
            }
            let installed = line.module.hasPrefix("/")
                ? access(line.module, F_OK) == 0
                : moduleDir.map { access("\($0)/\(line.module)", F_OK) == 0 } ?? true
            if !installed && line.control.lowercased() != "optional" {
                note(.fail, "gnome", tr("\(path) line \(line.number): gdm-fingerprint names \(line.module), which is not installed: GNOME's fingerprint login fails there"))
            }
        }
    }

    /// A finding of the model in words, after the service's path.
    static func say(_ finding: PamReview.Finding, _ path: String) -> (Level, String) {
        switch finding {
        case .ok(let name?):
            return (.ok, tr("\(path): touchauth before the password (\(name)), authsucc after it: a succeeded password lifts a lockout"))
        case .ok(nil):
            return (.ok, tr("\(path): touchauth, no password in this stack"))
        default:
            let (level, text) = say(finding)
            return (level, "\(path): \(text)")
        }
    }

    static func say(_ finding: PamReview.Finding) -> (Level, String) {
        switch finding {
        case .fprintdToo(let line):
            return (.fail, tr("pam_touchauth.so and \(line.moduleFile) (\(line.file) line \(line.number)) both ask for a finger: ours or pam_fprintd, not both (two prompts, six tries); pam-auth-update --disable fprintd (or remove the line): touchauth uses the prints fprintd enrolled (the same /var/lib/fprint)"))
        case .withoutPassword(let line):
            let what: String
            switch line.kind {
            case .authenticator(.fingerprint): what = tr("a fingerprint would lift the lockout")
            case .authenticator(.securityKey): what = tr("a security key would lift the lockout")
            case .authenticator(.smartcard): what = tr("a smartcard would lift the lockout")
            default: what = tr("a password that was typed but did not succeed would lift the lockout")
            }
            return (.fail, tr("a success of \(line.moduleFile) (\(line.file) line \(line.number)) reaches the authsucc line without a password: \(what)"))
        case .passwordFirst:
            return (.warn, tr("pam_unix comes before pam_touchauth: the password is asked first"))
        case .noRecorder(let name, let finger):
            return (.warn, finger.file.hasPrefix("common-")
                ? tr("no 'auth optional pam_touchauth.so authsucc' line after \(name): a password will not lift a fingerprint lockout (only touchauth unlock does); pam-auth-update --enable touchauth-unlock")
                : tr("no 'auth optional pam_touchauth.so authsucc' line after \(name): a password will not lift a fingerprint lockout (only touchauth unlock does); add it right after @include common-auth"))
        case .recorderBeforePassword(let name):
            return (.warn, tr("the authsucc line runs before \(name): a password \(name) asks for is not recorded, only one typed at the fingerprint prompt; put it right after @include common-auth"))
        case .failsAfterRecorder(let name):
            return (.warn, tr("the stack fails after the authsucc line even when \(name) succeeded: a password will not lift a lockout; put it right after @include common-auth"))
        case .recorderNotReached(let name):
            return (.warn, tr("the authsucc line is never reached after \(name) succeeded (a 'sufficient' or 'done' ends the stack first): a password will not lift a lockout; put it right after @include common-auth"))
        case .accountLine(let file):
            return (.warn, file.hasPrefix("common-")
                ? tr("'account ... pam_touchauth.so' (in \(file)) no longer clears anything: replace it with 'auth optional pam_touchauth.so authsucc' right after @include common-auth (pam-auth-update --package applies the new profiles)")
                : tr("'account ... pam_touchauth.so' (in \(file)) no longer clears anything: replace it with 'auth optional pam_touchauth.so authsucc' right after @include common-auth"))
        case .tooManyPaths(let limit):
            return (.warn, tr("more than \(limit) ways through the auth stack: only the first of them were judged"))
        case .ok:
            return (.ok, "")  // say(_:_:) words it
        }
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
