// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore
import TouchAuthPAM
import TouchAuthPlatform

/// A command: its name, the options it takes (`true`: takes a value), its synopsis (the same in
/// every language, as a manual page's), a note for the help (translated), and what it does
/// with the parsed options. tests/e2e/cli.sh checks completions/ against `touchauth --help`.
struct Command: Sendable {
    let name: String
    let options: [String: Bool]
    let usage: String
    var about: LocalizedText? = nil
    /// The option a bare word stands for (`touchauth unlock alice` = `--user alice`).
    var positional: String? = nil
    let run: @Sendable (Options) throws(CommandError) -> Void
}

let commands: [Command] = [
    Command(
        name: "pam-verify", options: [:],
        usage: "touchauth pam-verify",
        about: translatable("run by pam_touchauth.so; speaks docs/PROTOCOL.md on stdin/stdout"),
        run: { _ throws(CommandError) in exit(PamVerify.run()) }),
    Command(
        name: "enroll", options: ["user": true, "finger": true, "config": true, "replace": false, "device": true],
        usage: "touchauth enroll [--user USER] [--finger FINGER] [--replace] [--device DRIVER/ID] [--config PATH]",
        run: Enroll.run),
    Command(
        name: "list", options: ["user": true, "json": false, "config": true],
        usage: "touchauth list [--user USER] [--json] [--config PATH]",
        run: ListPrints.run),
    Command(
        name: "delete", options: ["user": true, "finger": true, "all": false, "device": true, "config": true],
        usage: "touchauth delete --finger FINGER | --all [--user USER] [--device DRIVER/ID] [--config PATH]",
        run: Delete.run),
    Command(
        name: "verify", options: ["user": true, "device": true, "config": true],
        usage: "touchauth verify [--user USER] [--device DRIVER/ID] [--config PATH]",
        about: translatable("one scan; no PAM, no strikes"),
        run: Verify.run),
    Command(
        name: "enable", options: ["user": true, "device": true, "config": true],
        usage: "touchauth enable [--user USER] [--device DRIVER/ID] [--config PATH]",
        about: translatable("after one matching scan"),
        run: Switch.enable),
    Command(
        name: "disable", options: ["user": true, "config": true],
        usage: "touchauth disable [--user USER] [--config PATH]",
        about: translatable("the password only, at once"),
        run: Switch.disable),
    Command(
        name: "doctor", options: ["user": true, "json": false, "pam-dir": true, "config": true],
        usage: "touchauth doctor [--user USER] [--json] [--pam-dir DIR] [--config PATH]",
        run: Doctor.run),
    Command(
        name: "pam-account", options: [:],
        usage: "touchauth pam-account",
        about: translatable("run by pam_touchauth.so's authsucc line after a succeeded password"),
        run: { _ throws(CommandError) in exit(PamAccount.run()) }),
    Command(
        name: "status", options: ["user": true, "json": false, "config": true],
        usage: "touchauth status [USER] [--json] [--config PATH]", positional: "user",
        run: Status.run),
    Command(
        name: "unlock", options: ["user": true, "config": true],
        usage: "touchauth unlock USER [--config PATH]", positional: "user",
        run: Unlock.run),
    Command(
        name: "config-dump", options: ["config": true, "arguments": true, "restricted": false],
        usage: "touchauth config-dump [--config PATH] [--arguments FILE [--restricted]]",
        about: translatable("the settings as the helper reads them"),
        run: ConfigDump.run),
]

/// The program: `touchauth COMMAND [OPTIONS]`.
public func main() -> Never {
    Caller.capture()  // sudo's SUDO_UID, before the environment goes
    Environment.sanitize()
    let arguments = Array(CommandLine.arguments.dropFirst())
    Gettext.start(languageInC: arguments.first?.hasPrefix("pam-") != true)
    Syslog.open()
    Privilege.restrict(arguments)  // a setuid run by a user: only pam-verify keeps root
    guard let name = arguments.first, name != "--help", name != "-h", name != "help" else {
        Files.write(help(), to: arguments.isEmpty ? 2 : 1)
        exit(arguments.isEmpty ? 2 : 0)
    }
    if name == "--version" || name == "version" {
        Files.write("touchauth \(Release.version)\n", to: 1)  // for scripts: untranslated
        exit(0)
    }
    guard let command = commands.first(where: { $0.name == name }) else {
        fail(.usage(tr("touchauth: unknown command '\(name)' (see touchauth --help)")))
    }
    do {
        let options = try parseOptions(Array(arguments.dropFirst()), for: command)
        if options["help"] != nil {
            Files.write(tr("usage: \(usageLine(command))") + "\n", to: 1)
            exit(0)
        }
        try command.run(Options(options))
        exit(0)
    } catch {
        fail(error)
    }
}

/// `touchauth --help`: every command's synopsis and note, the top-level options, the fingers.
func help() -> String {
    tr("usage:") + "\n" + commands.map { "  \(usageLine($0))\n" }.joined()
        + "  touchauth --help | --version\n"
        + tr("fingers: \(Finger.allCases.map(\.name).joined(separator: ", "))") + "\n"
}

/// A command's synopsis and its translated note: `touchauth verify [...]    (one scan; ...)`.
func usageLine(_ command: Command) -> String {
    command.usage + (command.about.map { "    (" + tr($0) + ")" } ?? "")
}

func fail(_ error: CommandError) -> Never {
    let text = error.description
    Files.write((text.hasPrefix("touchauth") ? text : "touchauth: \(text)") + "\n", to: 2)
    exit(error.exitStatus)
}

/// `--name value`, `--name=value`, or `--flag`, each at most once, only those the command takes:
/// the words as read, a flag with an empty value (`Options` types them).
func parseOptions(_ words: [String], for command: Command) throws(CommandError) -> [String: String] {
    var options: [String: String] = [:]
    var index = 0
    while index < words.count {
        let word = words[index]
        index += 1
        if word == "--help" || word == "-h" { return ["help": ""] }
        guard word.hasPrefix("--") else {
            guard let name = command.positional, options[name] == nil else {
                throw .usage(tr("\(command.name): unexpected argument '\(word)'"))
            }
            options[name] = word
            continue
        }
        var name = String(word.dropFirst(2))
        var value: String?
        if let eq = name.firstIndex(of: "=") {
            value = String(name[name.index(after: eq)...])
            name = String(name[..<eq])
        }
        guard let takesValue = command.options[name] else {
            throw .usage(tr("\(command.name): unknown option --\(name) (usage: \(command.usage))"))
        }
        guard options[name] == nil else { throw .usage(tr("\(command.name): --\(name) given twice")) }
        if takesValue {
            if value == nil, index < words.count {
                value = words[index]
                index += 1
            }
            guard let value, !value.isEmpty else { throw .usage(tr("\(command.name): --\(name) needs a value")) }
            options[name] = value
        } else {
            guard value == nil else { throw .usage(tr("\(command.name): --\(name) takes no value")) }
            options[name] = ""
        }
    }
    return options
}
