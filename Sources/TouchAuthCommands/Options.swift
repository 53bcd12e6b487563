// SPDX-License-Identifier: Apache-2.0
/// What a command was given, typed: one `@Option` (nil when not given) or `@Flag` per option, as
/// swift-argument-parser has them; they name the parser's options and the usage's words. Adding
/// one: its line here and in `values` or `flags`, the synopsis of each command that takes it
/// (Commands.swift), completions/ and touchauth(1).
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
    /// takes the word of its own name.
    init(_ parsed: [String: String]) {
        self.init()
        for path in Options.values { self[keyPath: path].wrappedValue = parsed[self[keyPath: path].name] }
        for path in Options.flags {
            self[keyPath: path].wrappedValue = parsed[self[keyPath: path].name] != nil
        }
    }

    /// Every declaration above, once (a unit test holds these lists to `declared`).
    static var values: [WritableKeyPath<Options, Option>] {
        [\._user, \._config, \._device, \._finger, \._pamDir, \._arguments]
    }
    static var flags: [WritableKeyPath<Options, Flag>] { [\._json, \._replace, \._all, \._restricted] }

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
        (self.name, self.value, wrappedValue) = (name, value, nil)
    }
}

/// `--name`, no value.
@propertyWrapper
struct Flag: OptionDeclaration, Equatable, Sendable {
    let name: String
    var wrappedValue: Bool
    var valueName: String? { nil }

    init(_ name: String) {
        (self.name, wrappedValue) = (name, false)
    }
}
