// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore
import TouchAuthPAM
import TouchAuthPlatform

/// A command: its name, its synopsis (the options it takes, by their declarations in
/// Options.swift; the same in every language, as a manual page's), a note for the help
/// (translated), and what it does with the parsed options. tests/e2e/cli.sh checks completions/
/// against `touchauth --help`.
struct Command: Sendable {
    let name: String
    var synopsis: [Part] = []
    var about: LocalizedText? = nil
    let run: @Sendable (Options) throws(CommandError) -> Void

    /// A piece of the synopsis, each naming declared options.
    enum Part: Sendable {
        /// `[--user USER]`, `[--json]`.
        case option(String)
        /// `--finger FINGER | --all`: one of the two.
        case either(String, String)
        /// `[USER]`, or `USER` when required: a bare word stands for the option
        /// (`touchauth unlock alice` = `--user alice`).
        case positional(String, required: Bool)
        /// `[--arguments FILE [--restricted]]`: the second only with the first.
        case nested(String, String)
    }

    /// The options it takes (`true`: takes a value), from the synopsis and the declarations.
    var options: [String: Bool] {
        var names: [String] = []
        for part in synopsis {
            switch part {
            case .option(let name), .positional(let name, _): names.append(name)
            case .either(let first, let second), .nested(let first, let second): names += [first, second]
            }
        }
        return Dictionary(names.map { ($0, Options.declared[$0].map { $0 != nil } ?? false) }) { first, _ in first }
    }

    /// The option a bare word stands for.
    var positional: String? {
        for case .positional(let name, _) in synopsis { return name }
        return nil
    }

    /// `touchauth enroll [--user USER] ...`: the synopsis in words.
    var usage: String {
        func spelled(_ name: String) -> String {
            "--\(name)" + ((Options.declared[name] ?? nil).map { " \($0)" } ?? "")
        }
        let words = synopsis.map { part in
            switch part {
            case .option(let name): "[\(spelled(name))]"
            case .either(let first, let second): "\(spelled(first)) | \(spelled(second))"
            case .positional(let name, let required):
                required ? (Options.declared[name] ?? nil) ?? name : "[\((Options.declared[name] ?? nil) ?? name)]"
            case .nested(let first, let second): "[\(spelled(first)) [\(spelled(second))]]"
            }
        }
        return (["touchauth", name] + words).joined(separator: " ")
    }
}

let commands: [Command] = [
    Command(
        name: "pam-verify",
        about: translatable("run by pam_touchauth.so; speaks docs/PROTOCOL.md on stdin/stdout"),
        run: { _ throws(CommandError) in exit(PamVerify.run()) }),
    Command(
        name: "enroll", synopsis: [.option("user"), .option("finger"), .option("replace"), .option("device"), .option("config")],
        run: Enroll.run),
    Command(
        name: "list", synopsis: [.option("user"), .option("json"), .option("config")],
        run: ListPrints.run),
    Command(
        name: "delete", synopsis: [.either("finger", "all"), .option("user"), .option("device"), .option("config")],
        run: Delete.run),
    Command(
        name: "verify", synopsis: [.option("user"), .option("device"), .option("config")],
        about: translatable("one scan; no PAM, no strikes"),
        run: Verify.run),
    Command(
        name: "enable", synopsis: [.option("user"), .option("device"), .option("config")],
        about: translatable("after one matching scan"),
        run: Switch.enable),
    Command(
        name: "disable", synopsis: [.option("user"), .option("config")],
        about: translatable("the password only, at once"),
        run: Switch.disable),
    Command(
        name: "doctor", synopsis: [.option("user"), .option("json"), .option("pam-dir"), .option("config")],
        run: Doctor.run),
    Command(
        name: "pam-account",
        about: translatable("run by pam_touchauth.so's authsucc line after a succeeded password"),
        run: { _ throws(CommandError) in exit(PamAccount.run()) }),
    Command(
        name: "status", synopsis: [.positional("user", required: false), .option("json"), .option("config")],
        run: Status.run),
    Command(
        name: "unlock", synopsis: [.positional("user", required: true), .option("config")],
        run: Unlock.run),
    Command(
        name: "config-dump", synopsis: [.option("config"), .nested("arguments", "restricted")],
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
