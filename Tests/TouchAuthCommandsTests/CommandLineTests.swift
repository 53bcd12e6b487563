// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import TouchAuthCommands
import TouchAuthCore
import TouchAuthPlatform

/// The one argument parser all commands share (Commands.swift), against the real command table.
@Suite struct CommandLineTests {
    func command(_ name: String) -> Command { commands.first { $0.name == name }! }

    @Test func valuesBothWaysAndFlags() throws {
        let enroll = command("enroll")
        #expect(try parseOptions(["--user", "alice", "--finger=left-thumb", "--replace"], for: enroll)
            == ["user": "alice", "finger": "left-thumb", "replace": ""])
        #expect(try parseOptions([], for: enroll) == [:])
    }

    /// Every declaration is filled from the parsed words: the lists `Options(_:)` walks name
    /// each one once, and each option and flag lands where its name says.
    @Test func everyDeclarationIsFilled() {
        let names = Options.values.map { Options()[keyPath: $0].name }
            + Options.flags.map { Options()[keyPath: $0].name }
        #expect(names.count == Set(names).count)
        #expect(Set(names) == Options.names)
        let given = Options([
            "user": "alice", "config": "/c", "device": "d/0", "finger": "left-thumb", "pam-dir": "/p",
            "arguments": "/a", "json": "", "replace": "", "all": "", "restricted": "",
        ])
        #expect(given.user == "alice" && given.config == "/c" && given.device == "d/0")
        #expect(given.finger == "left-thumb")
        #expect(given.pamDir == "/p" && given.arguments == "/a")
        #expect(given.json && given.replace && given.all && given.restricted)
        let none = Options([:])
        #expect(none == Options() && none.user == nil && !none.json)
    }

    @Test func aValueMayLookLikeAnythingButEmpty() throws {
        // The next word is the value even when it starts with dashes: `--user --json` names a user.
        #expect(try parseOptions(["--user", "--json"], for: command("list")) == ["user": "--json"])
        #expect(throws: CommandError.usage("list: --user needs a value")) {
            try parseOptions(["--user"], for: command("list"))
        }
        #expect(throws: CommandError.usage("list: --user needs a value")) {
            try parseOptions(["--user="], for: command("list"))
        }
    }

    @Test func refusals() {
        let list = command("list")
        #expect(throws: CommandError.usage("list: --user given twice")) {
            try parseOptions(["--user", "a", "--user=b"], for: list)
        }
        #expect(throws: CommandError.usage("list: --json takes no value")) {
            try parseOptions(["--json=yes"], for: list)
        }
        #expect(throws: CommandError.usage("list: unexpected argument 'alice'")) {
            try parseOptions(["alice"], for: list)
        }
        #expect(throws: CommandError.usage("list: unknown option --finger (usage: \(list.usage))")) {
            try parseOptions(["--finger", "x"], for: list)
        }
        // Options of one command are not options of another.
        #expect(throws: (any Error).self) { try parseOptions(["--replace"], for: command("delete")) }
    }

    @Test func positionalStandsForItsOption() throws {
        let unlock = command("unlock")
        #expect(try parseOptions(["alice"], for: unlock) == ["user": "alice"])
        #expect(try parseOptions(["alice", "--config", "/x"], for: unlock) == ["user": "alice", "config": "/x"])
        #expect(throws: CommandError.usage("unlock: unexpected argument 'alice'")) {
            try parseOptions(["--user", "bob", "alice"], for: unlock)
        }
        #expect(throws: CommandError.usage("unlock: unexpected argument 'bob'")) {
            try parseOptions(["alice", "bob"], for: unlock)
        }
    }

    @Test func helpWinsOverEverythingElse() throws {
        for name in commands.map(\.name) {
            #expect(try parseOptions(["--help"], for: command(name)) == ["help": ""])
            #expect(try parseOptions(["-h", "--nonsense"], for: command(name)) == ["help": ""])
        }
    }

    /// The table itself: unique names, a usage line that names the command and every option,
    /// `--config` wherever a command reads settings (the convention), and a positional
    /// that is one of the command's own value options.
    @Test func theTableIsConsistent() {
        #expect(Set(commands.map(\.name)).count == commands.count)
        for c in commands {
            #expect(c.usage.hasPrefix("touchauth \(c.name)"), "\(c.name)")
            for option in c.options.keys {
                // A positional option shows as its word: `touchauth unlock USER`.
                let shown = option == c.positional ? option.uppercased() : "--\(option)"
                #expect(c.usage.contains(shown), "\(c.name) \(shown)")
            }
            if !c.name.hasPrefix("pam-") { #expect(c.options["config"] == true, "\(c.name) takes --config") }
            if let p = c.positional { #expect(c.options[p] == true, "\(c.name) positional \(p)") }
        }
    }

    /// Every option of the table reaches its typed field (Options.swift): an option that had
    /// no field would be parsed and then silently dropped.
    @Test func everyOptionHasItsTypedField() throws {
        for c in commands {
            #expect(Set(c.options.keys).isSubset(of: Options.names), "\(c.name)")
        }
        let words = ["--user", "al", "--finger", "left-thumb", "--device", "virtual_device/0", "--replace", "--config", "/c"]
        var expected = Options()
        (expected.user, expected.finger, expected.device, expected.replace, expected.config) =
            ("al", "left-thumb", "virtual_device/0", true, "/c")
        #expect(Options(try parseOptions(words, for: command("enroll"))) == expected)
        var dump = Options()
        (dump.arguments, dump.restricted) = ("/a", true)
        #expect(Options(try parseOptions(["--arguments=/a", "--restricted"], for: command("config-dump"))) == dump)
        var doctor = Options()
        (doctor.pamDir, doctor.json) = ("/p", true)
        #expect(Options(try parseOptions(["--pam-dir", "/p", "--json"], for: command("doctor"))) == doctor)
        var delete = Options()
        delete.all = true
        #expect(Options(try parseOptions(["--all"], for: command("delete"))) == delete)
        #expect(Options(try parseOptions(["bob"], for: command("status"))).user == "bob")
    }

    /// `touchauth --help` (what the completions are checked against) has every command's row.
    @Test func theHelpListsEveryCommandAndTheVersionOption() {
        let text = help()
        for c in commands { #expect(text.contains("  \(c.usage)"), "\(c.name)") }
        #expect(text.contains("touchauth --help | --version"))
    }

    /// doctor's last line: the verdict is the worst level; keys in their fixed order.
    @Test func theDoctorSummaryLine() {
        let findings = [Doctor.Finding(level: .ok, check: "a", detail: ""), Doctor.Finding(level: .warn, check: "b", detail: "")]
        let summary = Doctor.Summary(findings: findings, user: "al", prints: 2, sensors: ["v/0"], services: 3, lockout: "no", enabled: true)
        #expect(summary.line == "touchauth doctor: WARN version=\(Release.version) user=al prints=2 sensors=1 pam=3 lockout=no enabled=yes fail=0 warn=1")
        #expect(summary.json.hasSuffix(",\"summary\":{\"status\":\"WARN\",\"version\":\"\(Release.version)\",\"user\":\"al\",\"prints\":2,"
            + "\"sensors\":1,\"pam\":3,\"lockout\":\"no\",\"enabled\":\"yes\",\"fail\":0,\"warn\":1}}"))
        #expect(Doctor.Summary(findings: [], user: "x", prints: 0, sensors: [], services: 0, lockout: "no", enabled: true).verdict == .ok)
    }

    /// A field is a JSON number for what it is, not for how its value looks: a user named
    /// `1000` stays a string (the summary's types must not change with the account's name).
    @Test func theDoctorSummaryTypesByField() {
        let summary = Doctor.Summary(findings: [], user: "1000", prints: 1, sensors: [], services: 0, lockout: "no", enabled: false)
        #expect(summary.json.contains("\"user\":\"1000\",\"prints\":1,"))
    }

    @Test func exitStatuses() {
        #expect(CommandError.usage("x").exitStatus == 2)
        #expect(CommandError.interrupted("x").exitStatus == 130)
        #expect(CommandError.failed("x").exitStatus == 1)
        #expect(CommandError.config("x").exitStatus == 1)
        #expect(CommandError.unavailable("x").exitStatus == 1)
    }
}
