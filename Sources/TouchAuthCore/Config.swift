/// The settings of `/etc/security/touchauth.conf` and the module arguments. One parser serves
/// both (as pam_faillock's `set_conf_opt`); `pam/options.c` is its twin in the shim and
/// `tests/config/` proves they read every file the same way.
///
/// Grammar: lines of `key = value`; blank lines and lines starting with `#` are skipped; key and
/// value are trimmed of spaces and tabs; a `#` inside a value is part of it; the last of
/// duplicate keys wins; unknown keys are reported and skipped; a line over 1023 bytes, a control
/// byte, a line without `=` or a key outside `[a-z_]` is an error naming the line; a bad value
/// is an error naming the key.
public struct Config: Equatable, Sendable {
    public var maxTries = 3
    public var timeout = 30
    public var reason = ""
    public var fallbackTitle = "Enter Password"
    public var printDir = "/var/lib/fprint"
    public var helper = Config.defaultHelper
    public var debug = false
    public var virtualDevice = ""
    public var virtualDeviceStorage = ""
    /// Strikes, lockout and trust state (DESIGN.md §2, §3).
    public var stateDir = "/var/lib/touchauth"
    public var lockoutThreshold = 5
    /// Seconds after which a lockout ends by itself; 0: only the password or an admin.
    public var unlockTime = 0
    public var passwordAfterBoot = true
    /// Hours without a password after which the password is required; 0: off.
    public var passwordMaxAge = 48
    public var passwordAfterEnrollChange = true
    public var requirePasswordSet = true
    /// Where the laptop lids are: `<lid_dir>/<LID>/state` says "open" or "closed".
    public var lidDir = "/proc/acpi/button/lid"

    public static let defaultPath = "/etc/security/touchauth.conf"
    public static let defaultHelper = "/usr/libexec/touchauth/touchauth"
    public static let maxLineBytes = 1023
    public static let maxFileBytes = 64 * 1024
    /// AF_UNIX `sun_path` holds 107 bytes and a NUL; libfprint silently truncates longer paths.
    public static let maxSocketPathBytes = 107

    public init() {}

    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case invalidLine(Int)
        case invalidValue(key: String)
        case invalidArgument(String)
        case invalidFile(String)

        /// The one line both dumps print (tests/config/README.md); also the log line.
        public var description: String {
            switch self {
            case .invalidLine(let n): "invalid line \(n)"
            case .invalidValue(let key): "invalid \(key)"
            case .invalidArgument(let arg): "invalid module argument \(arg)"
            case .invalidFile(let why): "invalid file (\(why))"
            }
        }
    }

    /// Every key and its type: the table both parsers follow, in dump order.
    enum Key: String, CaseIterable {
        case maxTries = "max_tries", timeout, reason, fallbackTitle = "fallback_title"
        case printDir = "print_dir", helper, debug
        case virtualDevice = "virtual_device", virtualDeviceStorage = "virtual_device_storage"
        case stateDir = "state_dir", lockoutThreshold = "lockout_threshold", unlockTime = "unlock_time"
        case passwordAfterBoot = "password_after_boot", passwordMaxAge = "password_max_age"
        case passwordAfterEnrollChange = "password_after_enroll_change"
        case requirePasswordSet = "require_password_set", lidDir = "lid_dir"
    }

    /// Applies a whole file's bytes; returns the unknown keys, for the caller to report.
    public mutating func apply(file bytes: [UInt8]) throws(Config.Error) -> [String] {
        var unknown: [String] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            // Length and control bytes are checked on the whole line, comments included.
            guard line.count <= Config.maxLineBytes, !line.contains(where: Config.isControl) else {
                throw .invalidLine(index + 1)
            }
            let trimmed = line.trimmingBlanks()
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            guard let (key, value) = Config.split(trimmed) else { throw .invalidLine(index + 1) }
            if try !set(key: key, value: value) { unknown.append(key) }
        }
        return unknown
    }

    /// Applies one module argument: a line of the file's grammar (`key=value`; empty or `#`
    /// arguments are skipped), or the bare flag `debug`. An argument must fit one request line
    /// (`maxArgumentBytes`). Returns false for an unknown key, which the caller reports.
    /// `config=` is not applied here: see `configPath(in:)`.
    public mutating func apply(argument: String) throws(Config.Error) -> Bool {
        if argument == "debug" { debug = true; return true }
        let bytes = Array(argument.utf8)
        guard bytes.count <= Config.maxArgumentBytes else { throw .invalidArgument(argument) }
        let trimmed = bytes.trimmingBlanks()
        if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { return true }
        guard let (key, value) = Config.split(trimmed) else { throw .invalidArgument(argument) }
        if key == "config" { return true }
        return try set(key: key, value: value)
    }

    /// "arg " + argument + "\n" fills at most one protocol line.
    public static let maxArgumentBytes = WireProtocol.maxLineBytes - 5

    /// The `config=PATH` argument, if any (the last one wins): the file to read before the
    /// arguments apply. It must be an absolute path.
    public static func configPath(in arguments: [String]) throws(Config.Error) -> String? {
        var path: String?
        for argument in arguments {
            guard let (key, value) = Config.split(Array(argument.utf8).trimmingBlanks()), key == "config" else {
                continue
            }
            guard value.utf8.first == UInt8(ascii: "/"), value.utf8.count <= 4095 else {
                throw .invalidValue(key: "config")
            }
            path = value
        }
        return path
    }

    /// `key=value`, one per line, in table order (tests/config/README.md).
    public var dump: String {
        Key.allCases.map { "\($0.rawValue)=\(value(of: $0))\n" }.joined()
    }

    private func yesNo(_ flag: Bool) -> String { flag ? "yes" : "no" }

    func value(of key: Key) -> String {
        switch key {
        case .maxTries: String(maxTries)
        case .timeout: String(timeout)
        case .reason: reason
        case .fallbackTitle: fallbackTitle
        case .printDir: printDir
        case .helper: helper
        case .debug: yesNo(debug)
        case .virtualDevice: virtualDevice
        case .virtualDeviceStorage: virtualDeviceStorage
        case .stateDir: stateDir
        case .lockoutThreshold: String(lockoutThreshold)
        case .unlockTime: String(unlockTime)
        case .passwordAfterBoot: yesNo(passwordAfterBoot)
        case .passwordMaxAge: String(passwordMaxAge)
        case .passwordAfterEnrollChange: yesNo(passwordAfterEnrollChange)
        case .requirePasswordSet: yesNo(requirePasswordSet)
        case .lidDir: lidDir
        }
    }

    /// TAB is the only control byte a line may hold.
    static func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7f }

    private static func split(_ line: ArraySlice<UInt8>) -> (String, String)? {
        guard !line.contains(where: Config.isControl), let eq = line.firstIndex(of: UInt8(ascii: "="))
        else { return nil }
        let key = line[..<eq].trimmingBlanks()
        guard !key.isEmpty, key.allSatisfy({ $0 == UInt8(ascii: "_") || (0x61...0x7a).contains($0) }),
            let value = String(validating: line[(eq + 1)...].trimmingBlanks(), as: UTF8.self)
        else { return nil }
        return (String(decoding: key, as: UTF8.self), value)
    }

    private mutating func set(key name: String, value: String) throws(Config.Error) -> Bool {
        guard let key = Key(rawValue: name) else { return false }
        let bad = Config.Error.invalidValue(key: name)
        func integer(_ range: ClosedRange<Int>) throws(Config.Error) -> Int {
            guard (1...9).contains(value.utf8.count), value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let number = Int(value), range.contains(number)
            else { throw bad }
            return number
        }
        func path(maxBytes: Int, optional: Bool) throws(Config.Error) -> String {
            if optional && value.isEmpty { return value }
            // Byte-wise, as the shim's parser: `hasPrefix("/")` compares Characters, and "/"
            // followed by a combining mark is another Character.
            guard value.utf8.first == UInt8(ascii: "/"), value.utf8.count <= maxBytes else { throw bad }
            return value
        }
        func boolean() throws(Config.Error) -> Bool {
            switch value {
            case "yes", "true", "on", "1": return true
            case "no", "false", "off", "0": return false
            default: throw bad
            }
        }
        switch key {
        case .maxTries: maxTries = try integer(1...10)
        case .timeout: timeout = try integer(1...600)
        case .reason: reason = value
        case .fallbackTitle: fallbackTitle = value
        case .printDir: printDir = try path(maxBytes: 4095, optional: false)
        case .helper: helper = try path(maxBytes: 4095, optional: false)
        case .debug: debug = try boolean()
        case .virtualDevice: virtualDevice = try path(maxBytes: Config.maxSocketPathBytes, optional: true)
        case .virtualDeviceStorage:
            virtualDeviceStorage = try path(maxBytes: Config.maxSocketPathBytes, optional: true)
        case .stateDir: stateDir = try path(maxBytes: 4095, optional: false)
        case .lockoutThreshold: lockoutThreshold = try integer(1...1000)
        case .unlockTime: unlockTime = try integer(0...31_536_000)
        case .passwordAfterBoot: passwordAfterBoot = try boolean()
        case .passwordMaxAge: passwordMaxAge = try integer(0...8760)
        case .passwordAfterEnrollChange: passwordAfterEnrollChange = try boolean()
        case .requirePasswordSet: requirePasswordSet = try boolean()
        case .lidDir: lidDir = try path(maxBytes: 4095, optional: false)
        }
        return true
    }
}

extension Collection where Element == UInt8, SubSequence == ArraySlice<UInt8> {
    func trimmingBlanks() -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = firstIndex(where: { !blank($0) }) else { return self[endIndex...] }
        let last = self[first...].lastIndex(where: { !blank($0) }) ?? first
        return self[first...last]
    }
}
