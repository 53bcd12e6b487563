import Testing
@testable import TouchAuthCore

@Suite struct ProtocolTests {
    let good = "touchauth-request 1\nuser alice\nservice sudo\narg timeout=5\narg debug\nend\n"

    @Test func aWellFormedRequestParses() throws {
        let request = try Request.parse(Array(good.utf8))
        #expect(request == Request(user: "alice", service: "sudo", arguments: ["timeout=5", "debug"]))
        #expect(request.encoded == good)
    }

    @Test func argumentsMayContainSpacesAndEquals() throws {
        let text = "touchauth-request 1\nuser bob\nservice login\narg reason=a b=c\nend\n"
        #expect(try Request.parse(Array(text.utf8)).arguments == ["reason=a b=c"])
    }

    @Test(arguments: [
        ("", Request.Error.incomplete),
        ("touchauth-request 1\nuser alice\nservice sudo\nend", .incomplete),  // no final newline
        ("touchauth-request 1\nuser alice\nservice sudo\n", .incomplete),
        ("touchauth-request 2\nuser alice\nservice sudo\nend\n", .malformed(line: 1)),
        ("touchauth-request 1\nservice sudo\nuser alice\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser \nservice sudo\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser alice\nservice sudo\nbogus x\nend\n", .malformed(line: 4)),
        ("touchauth-request 1\nuser al\u{1b}ice\nservice sudo\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser alice\r\nservice sudo\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser alice\nservice sudo\nend\nextra\n", .incomplete),
    ])
    func malformedRequestsAreRejected(text: String, expected: Request.Error) {
        #expect(throws: expected) { try Request.parse(Array(text.utf8)) }
    }

    @Test func tooManyArgumentsOrLinesAreRejected() {
        let args = (0..<33).map { "arg k\($0)=v\n" }.joined()
        let text = "touchauth-request 1\nuser a\nservice s\n" + args + "end\n"
        #expect(throws: Request.Error.tooLong) { try Request.parse(Array(text.utf8)) }
        let overlong = "touchauth-request 1\nuser " + String(repeating: "a", count: 1100) + "\nservice s\nend\n"
        #expect(throws: Request.Error.malformed(line: 2)) { try Request.parse(Array(overlong.utf8)) }
    }

    @Test func invalidUTF8IsRejected() {
        var bytes = Array("touchauth-request 1\nuser ".utf8)
        bytes += [0xff, 0xfe]
        bytes += Array("\nservice s\nend\n".utf8)
        #expect(throws: Request.Error.malformed(line: 2)) { try Request.parse(bytes) }
    }

    @Test func replyLinesAreWireSafe() {
        #expect(ReplyLine.info("Place your finger").encoded == "info Place your finger\n")
        #expect(ReplyLine.error("two\nlines\u{7f}").encoded == "error two lines \n")
        #expect(ReplyLine.info("").encoded == "info  \n")
        #expect(ReplyLine.result(.authenticationFailed).encoded == "result authenticationFailed\n")
        let long = ReplyLine.info(String(repeating: "指", count: 400)).encoded  // 3 bytes each
        #expect(long.utf8.count <= "info \n".utf8.count + WireProtocol.maxTextBytes)
        #expect(long.hasSuffix("指\n"))
    }

    @Test func everyOutcomeHasItsProtocolName() {
        #expect(Outcome.allCases.map(\.rawValue) == [
            "success", "authenticationFailed", "userFallback", "userCancel", "systemCancel",
            "biometryLockout", "biometryNotAvailable", "biometryNotEnrolled", "passwordNotSet", "passwordRequired",
        ])
    }
}
