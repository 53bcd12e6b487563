// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

private func parse(_ text: String) throws(Config.Error) -> (Config, [String]) {
    var config = Config()
    let unknown = try config.apply(file: Array(text.utf8))
    return (config, unknown)
}

@Suite struct ConfigTests {
    @Test func emptyFileGivesTheDocumentedDefaults() throws {
        let (config, unknown) = try parse("# nothing\n\n   \n")
        #expect(unknown.isEmpty)
        #expect(config == Config())
        #expect(config.maxTries == 3 && config.timeout == 30 && config.fallbackTitle == "Enter Password")
        #expect(config.printDir == "/var/lib/fprint" && !config.debug && config.virtualDevice.isEmpty)
    }

    @Test func everyKeyIsReadTrimmedAndTheLastDuplicateWins() throws {
        let (config, _) = try parse(
            """
            max_tries = 2
            max_tries=5
            \ttimeout\t=\t007\t
            reason = run a command # as root
            fallback_title =
            print_dir = /srv/prints
            helper = /opt/touchauth
            debug = on
            virtual_device = /run/t/v.sock
            virtual_device_storage = /run/t/s.sock
            """)
        #expect(config.maxTries == 5)
        #expect(config.timeout == 7)
        #expect(config.reason == "run a command # as root")
        #expect(config.fallbackTitle == "")
        #expect(config.printDir == "/srv/prints")
        #expect(config.helper == "/opt/touchauth")
        #expect(config.debug)
        #expect(config.virtualDevice == "/run/t/v.sock")
        #expect(config.virtualDeviceStorage == "/run/t/s.sock")
    }

    @Test func unknownKeysAreReportedNotFatal() throws {
        let (config, unknown) = try parse("colour = blue\nmax_tries = 4\nconfig = /etc/other\n")
        #expect(unknown == ["colour", "config"])
        #expect(config.maxTries == 4)
    }

    @Test(arguments: [
        ("max_tries = 0", Config.Error.invalidValue(key: "max_tries")),
        ("max_tries = 11", .invalidValue(key: "max_tries")),
        ("timeout = abc", .invalidValue(key: "timeout")),
        ("timeout = -5", .invalidValue(key: "timeout")),
        ("timeout = +5", .invalidValue(key: "timeout")),
        ("timeout = 1 0", .invalidValue(key: "timeout")),
        ("timeout = 1234567890", .invalidValue(key: "timeout")),
        ("timeout = 601", .invalidValue(key: "timeout")),
        ("timeout =", .invalidValue(key: "timeout")),
        ("debug = maybe", .invalidValue(key: "debug")),
        ("debug = YES", .invalidValue(key: "debug")),
        ("print_dir = relative/path", .invalidValue(key: "print_dir")),
        ("helper =", .invalidValue(key: "helper")),
        ("virtual_device = /" + String(repeating: "x", count: 107), .invalidValue(key: "virtual_device")),
        ("just words", .invalidLine(1)),
        ("Max_Tries = 3", .invalidLine(1)),
        ("= 3", .invalidLine(1)),
        ("# ok\nreason = a\u{1}b", .invalidLine(2)),
        ("# a comment with a control byte \u{1}", .invalidLine(1)),
        ("reason = carriage\r", .invalidLine(1)),
        ("reason = " + String(repeating: "x", count: 1100), .invalidLine(1)),
    ])
    func badLinesAreRejectedNamingTheKeyOrLine(line: String, expected: Config.Error) {
        #expect(throws: expected) { try parse(line) }
    }

    @Test func aSocketPathOfExactly107BytesIsAccepted() throws {
        let path = "/" + String(repeating: "x", count: 106)
        let (config, _) = try parse("virtual_device = \(path)")
        #expect(config.virtualDevice == path)
    }

    @Test func moduleArgumentsUseTheSameParserAndBareDebug() throws {
        var config = Config()
        #expect(try config.apply(argument: "debug"))
        #expect(try config.apply(argument: "timeout=2"))
        #expect(try config.apply(argument: "reason=authenticate to run a command as root"))
        #expect(try !config.apply(argument: "nosuchkey=1"))
        #expect(config.debug && config.timeout == 2 && config.reason == "authenticate to run a command as root")
        #expect(throws: Config.Error.invalidValue(key: "max_tries")) { try config.apply(argument: "max_tries=99") }
        #expect(throws: Config.Error.invalidArgument("nodelay")) { try config.apply(argument: "nodelay") }
    }

    @Test func configArgumentNamesTheFileAndTheLastOneWins() throws {
        #expect(try Config.configPath(in: ["debug", "config=/a", "config = /b"]) == "/b")
        #expect(try Config.configPath(in: ["debug"]) == nil)
        #expect(throws: Config.Error.invalidValue(key: "config")) { try Config.configPath(in: ["config=rel"]) }
    }

    @Test func argumentsLikeTheShimSkipsThem() throws {
        var config = Config()
        #expect(try config.apply(argument: ""))
        #expect(try config.apply(argument: "# note"))
        #expect(try config.apply(argument: "config=/etc/x"))  // applied by configPath(in:), not here
        #expect(config == Config())
        let long = "reason=" + String(repeating: "x", count: Config.maxArgumentBytes - 7)
        #expect(try config.apply(argument: long))
        #expect(throws: Config.Error.invalidArgument(long + "x")) { try config.apply(argument: long + "x") }
    }

    @Test func invalidUTF8InAValueIsAnInvalidLineButAnyCommentIsFine() throws {
        var config = Config()
        #expect(throws: Config.Error.invalidLine(1)) { try config.apply(file: Array("reason = a".utf8) + [0xff]) }
        #expect(throws: Config.Error.invalidLine(1)) { try config.apply(file: Array("reason = ".utf8) + [0xed, 0xa0, 0x80]) }
        _ = try config.apply(file: Array("# ".utf8) + [0xff, 0x0a] + Array("max_tries=2".utf8))
        #expect(config.maxTries == 2)
    }

    @Test func dumpListsEveryKeyInTableOrder() {
        #expect(
            Config().dump == """
                max_tries=3
                timeout=30
                reason=
                fallback_title=Enter Password
                show_command=yes
                print_dir=/var/lib/fprint
                helper=/usr/libexec/touchauth/touchauth
                debug=no
                virtual_device=
                virtual_device_storage=
                state_dir=/var/lib/touchauth
                lockout_threshold=5
                unlock_time=0
                password_after_boot=yes
                password_max_age=48
                password_after_enroll_change=yes
                require_password_set=yes
                lid_dir=/proc/acpi/button/lid
                sysfs_dir=/sys
                terminal_without_logind=no
                finger_at_keyring_login=no

                """)
    }
}
