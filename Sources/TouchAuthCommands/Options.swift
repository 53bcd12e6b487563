// SPDX-License-Identifier: Apache-2.0
import Glibc

/// What a command was given, typed: one declaration per option, `@Option` (takes a value) or
/// `@Flag`, as swift-argument-parser has them. The declarations give the parser its names
/// (`parseOptions`) and the usage its words (`Command.usage`, which `--help` shows and
/// completions/ is checked against); a command's row (Commands.swift) names those it takes.
/// A value option is nil when not given; a flag is false. Adding an option: its line here, its
/// name in the synopsis of each command that takes it, then completions/ and touchauth(1).
struct Options: Equatable, Sendable {
    /// `--user USER` (or the positional word of `status`, `unlock`): whom the command acts on.
    @Option("user", value: "USER") var user: String?
    /// `--config PATH`: the settings file, which must exist, instead of the module's default.
    @Option("config", value: "PATH") var config: String?
    /// `--device DRIVER/ID`, or a driver with one sensor.
    @Option("device", value: "DRIVER/ID") var device: String?
    /// `--finger NAME`: fprintd's finger names.
    @Option("finger", value: "FINGER") var finger: String?
    /// `doctor --pam-dir DIR`: the PAM stacks to read.
    @Option("pam-dir", value: "DIR") var pamDir: String?
    /// `config-dump --arguments FILE`: module arguments, one a line.
    @Option("arguments", value: "FILE") var arguments: String?
    @Flag("json") var json: Bool
    /// `enroll --replace`: enroll over a finger that has a print.
    @Flag("replace") var replace: Bool
    /// `delete --all`.
    @Flag("all") var all: Bool
    /// `config-dump --restricted`: filter the arguments as for a caller that is not root.
    @Flag("restricted") var restricted: Bool

    /// Nothing given.
    init() {}

    /// From what `parseOptions` read (a flag is present with an empty value): each declaration
    /// takes its own word while `given` is set.
    init(_ parsed: [String: String]) {
        pthread_mutex_lock(Options.building)
        defer { pthread_mutex_unlock(Options.building) }
        Options.given = parsed
        defer { Options.given = [:] }
        self.init()
    }

    /// The words being typed into a new Options, read by each declaration's init: set only by
    /// `init(_:)`, for the one `Options()` it makes, under `building`. Not a `@TaskLocal`: that
    /// links Swift's concurrency runtime and libdispatch into the helper (+0.9 MB of binary,
    /// +0.75 MB of peak RSS at every prompt, scripts/bench.sh).
    nonisolated(unsafe) fileprivate static var given: [String: String] = [:]
    nonisolated(unsafe) private static let building: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()

    /// Every declaration, by name: nil for a flag, else the word its value shows as.
    static let declared: [String: String?] = Dictionary(
        uniqueKeysWithValues: Mirror(reflecting: Options()).children.compactMap { $0.value as? any OptionDeclaration }
            .map { ($0.name, $0.valueName) })

    /// Every option name a command's row may use.
    static var names: Set<String> { Set(declared.keys) }
}

/// What the parser and the usage read of a declaration.
protocol OptionDeclaration {
    var name: String { get }
    /// The word the usage shows for the value (`USER`); nil for a flag.
    var valueName: String? { get }
}

/// `--name VALUE`, or `--name=VALUE`.
@propertyWrapper
struct Option: OptionDeclaration, Equatable, Sendable {
    let name: String
    let value: String
    var wrappedValue: String?
    var valueName: String? { value }

    init(_ name: String, value: String) {
        (self.name, self.value) = (name, value)
        wrappedValue = Options.given[name]
    }
}

/// `--name`, no value.
@propertyWrapper
struct Flag: OptionDeclaration, Equatable, Sendable {
    let name: String
    var wrappedValue: Bool
    var valueName: String? { nil }

    init(_ name: String) {
        self.name = name
        wrappedValue = Options.given[name] != nil
    }
}
