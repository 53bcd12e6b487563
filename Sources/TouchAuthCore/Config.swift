// SPDX-License-Identifier: Apache-2.0
package import CConfig

/// The settings of `/etc/security/touchauth.conf` and the module arguments: a typed view of
/// the shim's `struct config_values`, filled in by the shim's own parser (`pam/config*.c`,
/// built into the helper as the CConfig target), so the two binaries cannot read a file
/// differently. `tests/config/` pins the grammar for both dumps.
///
/// Grammar: lines of `key = value`; blank lines and lines starting with `#` are skipped; key and
/// value are trimmed of spaces and tabs; a `#` inside a value is part of it; the last of
/// duplicate keys wins; unknown keys are reported and skipped; a line over 1023 bytes, a control
/// byte, a line without `=` or a key outside `[a-z_]` is an error naming the line; a bad value
/// is an error naming the key.
public struct Config: Equatable, Sendable {
    /// The struct, on the heap and copied on write: held as a Swift value, its 4 KiB strings
    /// (tuples of 4096 CChars) make the optimizer crawl.
    private var storage = Storage()

    /// The defaults of the key table (`config_defaults`).
    public init() {}

    /// The key `name`'s value, typed by its property (ConfigKeys.swift): read and written
    /// through the key table (`config_number`, `config_text`, `config_set`), so a value set here
    /// obeys the table as a parsed one does.
    subscript<Value: ConfigValue>(key name: String) -> Value {
        get { Value.value(in: self, at: name) }
        set {
            let status = withValues { config_set($0, name, newValue.configText) }
            precondition(status == 0, "\(name) = \(newValue): outside the key table's bounds")
        }
    }

    public static let defaultPath = DEFAULT_CONFIG_PATH
    public static let defaultHelper = HELPER_PATH
    public static let maxLineBytes = Int(CONFIG_LINE_MAX)
    /// AF_UNIX `sun_path` holds 107 bytes and a NUL; libfprint silently truncates longer paths.
    public static let maxSocketPathBytes = Int(CONFIG_SOCKET_PATH_MAX)
    /// "arg " + argument + "\n" fills at most one protocol line.
    public static let maxArgumentBytes = Int(CONFIG_ARG_MAX)

    /// A parser error as a value, for tests; `config_error_text` words it.
    public enum Error: Swift.Error, Equatable {
        case invalidLine(Int)
        case invalidValue(key: String)
        case invalidArgument(String)

        package init(_ error: UnsafeMutablePointer<config_error>, argument: String = "") {
            switch error.pointee.kind {
            case CONFIG_ERR_LINE: self = .invalidLine(Int(error.pointee.line))
            case CONFIG_ERR_KEY: self = .invalidValue(key: Config.string(&error.pointee.key))
            default: self = .invalidArgument(argument)
            }
        }
    }

    /// Applies a whole file's bytes (`config_apply_text`); returns the unknown keys, for the
    /// caller to report.
    public mutating func apply(file bytes: [UInt8]) throws(Config.Error) -> [String] {
        var error = config_error()
        let (status, unknown) = Config.hearingUnknownKeys { log in
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { text in
                    withValues { config_apply_text(log, $0, text.baseAddress, text.count, "file", &error) }
                }
            }
        }
        guard status == 0 else { throw Config.Error(&error) }
        return unknown.map(\.key)
    }

    /// Applies one module argument (`config_apply_argument`): a line of the file's grammar
    /// (`key=value`; empty or `#` arguments are skipped), or the bare flag `debug`. An argument
    /// must fit one request line (`maxArgumentBytes`). Returns false for an unknown key, which
    /// the caller reports. `config=` is not applied here: see `configPath(in:)`.
    public mutating func apply(argument: String) throws(Config.Error) -> Bool {
        guard !argument.utf8.contains(0) else { throw .invalidArgument(argument) }
        var error = config_error()
        let (status, unknown) = Config.hearingUnknownKeys { log in
            withValues { config_apply_argument(log, $0, argument, 0, &error) }
        }
        guard status == 0 else { throw Config.Error(&error, argument: argument) }
        return unknown.isEmpty
    }

    /// The `config=PATH` argument, if any (the last one wins): the file to read before the
    /// arguments apply (`config_find_path`). It must be an absolute path.
    public static func configPath(in arguments: [String]) throws(Config.Error) -> String? {
        var error = config_error()
        var path = [CChar](repeating: 0, count: Int(CONFIG_PATH_MAX) + 1)
        let status = withCStrings(arguments) { argv in
            config_find_path(nil, CInt(arguments.count), argv, &path, &error)
        }
        guard status == 0 else { throw Config.Error(&error, argument: arguments.at(Int(error.argument)) ?? "") }
        return path[0] == 0 ? nil : string(path)
    }

    /// `key=value`, one per line, in the key table's order (`config_dump`).
    public var dump: String {
        var buffer = [CChar](repeating: 0, count: Int(CONFIG_DUMP_MAX))
        let length = withExtendedLifetime(storage) { config_dump(storage.values, &buffer, buffer.count) }
        return String(decoding: buffer.prefix(min(length, buffer.count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every key takes part: the dump shows them all.
    public static func == (lhs: Config, rhs: Config) -> Bool { lhs.dump == rhs.dump }

    func number(_ name: String) -> CInt { withExtendedLifetime(storage) { config_number(storage.values, name) } }

    func text(_ name: String) -> String {
        withExtendedLifetime(storage) { config_text(storage.values, name).map { String(cString: $0) } ?? "" }
    }

    /// This Config's own struct, for a parser call to fill in (`config_load` and friends).
    package mutating func withValues<Result>(_ body: (UnsafeMutablePointer<config_values>) -> Result) -> Result {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
        return withExtendedLifetime(storage) { body(storage.values) }
    }
}

/// A `struct config_values` that one Config owns, or several share until one writes.
private final class Storage: @unchecked Sendable {
    let values = UnsafeMutablePointer<config_values>.allocate(capacity: 1)

    init() { config_defaults(values) }

    init(copying other: Storage) {
        UnsafeMutableRawPointer(values).copyMemory(from: other.values, byteCount: MemoryLayout<config_values>.size)
    }

    deinit { values.deallocate() }
}

extension Config {
    /// A C string field (`config_error.key`, `.path`: imported as a tuple) as a String, read in
    /// place: a 4096-tuple copied as a value makes the optimizer crawl.
    package static func string<Field>(_ field: inout Field) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// A NUL-terminated buffer the parser filled in as a String.
    package static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs a parser call with a `config_log` whose `unknown_key` collects the unknown keys and
    /// where they were; its lines are dropped: the helper reports `config_error_text`'s words
    /// once, from the `config_error`.
    package static func hearingUnknownKeys<Result>(
        _ body: (UnsafePointer<config_log>) -> Result
    ) -> (Result, [(key: String, place: String)]) {
        let heard = UnknownKeys()
        var log = config_log(
            line: { _, _, _ in },
            unknown_key: { context, key, place in
                guard let context, let key, let place else { return }
                Unmanaged<UnknownKeys>.fromOpaque(context).takeUnretainedValue().keys.append(
                    (String(cString: key), String(cString: place)))
            },
            ctx: Unmanaged.passUnretained(heard).toOpaque())
        let result = withExtendedLifetime(heard) { withUnsafePointer(to: &log) { body($0) } }
        return (result, heard.keys)
    }

    /// `argv` for the C parser, NULL-terminated: the strings stay valid while `body` runs.
    package static func withCStrings<Result>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> Result) -> Result {
        var bytes: [CChar] = []
        var starts: [Int] = []
        for string in strings {
            starts.append(bytes.count)
            bytes += string.utf8.map { CChar(bitPattern: $0) }
            bytes.append(0)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            body(starts.map { start in buffer.baseAddress.map { $0 + start } } + [nil])
        }
    }
}

/// What `Config.hearingUnknownKeys` heard, reached from C through `config_log.ctx`.
private final class UnknownKeys {
    var keys: [(key: String, place: String)] = []
}

extension Array {
    /// The element at `index`, or nil outside the array (an index the parser reported).
    package func at(_ index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
