// SPDX-License-Identifier: Apache-2.0
/// What a command was given, typed: `parseOptions` reads the words against the command's own
/// table row (Commands.swift), and the commands read these fields, never the words. A value
/// option is nil when not given; a flag is false.
struct Options: Equatable, Sendable {
    /// `--user USER` (or the positional word of `status`, `unlock`): whom the command acts on.
    var user: String?
    /// `--config PATH`: the settings file, which must exist, instead of the module's default.
    var config: String?
    /// `--device DRIVER/ID`, or a driver with one sensor.
    var device: String?
    /// `--finger NAME`: fprintd's finger names.
    var finger: String?
    /// `doctor --pam-dir DIR`: the PAM stacks to read.
    var pamDir: String?
    /// `config-dump --arguments FILE`: module arguments, one a line.
    var arguments: String?
    var json = false
    /// `enroll --replace`: enroll over a finger that has a print.
    var replace = false
    /// `delete --all`.
    var all = false
    /// `config-dump --restricted`: filter the arguments as for a caller that is not root.
    var restricted = false

    /// Every option name a command's row may use: each is a field above.
    static let names: Set<String> = [
        "user", "config", "device", "finger", "pam-dir", "arguments", "json", "replace", "all", "restricted",
    ]

    init() {}

    /// From what `parseOptions` read (a flag is present with an empty value).
    init(_ parsed: [String: String]) {
        user = parsed["user"]
        config = parsed["config"]
        device = parsed["device"]
        finger = parsed["finger"]
        pamDir = parsed["pam-dir"]
        arguments = parsed["arguments"]
        json = parsed["json"] != nil
        replace = parsed["replace"] != nil
        all = parsed["all"] != nil
        restricted = parsed["restricted"] != nil
    }
}
