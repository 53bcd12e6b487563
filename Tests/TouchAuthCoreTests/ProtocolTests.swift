// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

@Suite struct ProtocolTests {
    let good = "touchauth-request 1\nuser alice\nservice sudo\nfallback enter\narg timeout=5\narg debug\nend\n"

    @Test func aWellFormedRequestParses() throws {
        let request = try Request.parse(Array(good.utf8))
        #expect(request == Request(user: "alice", service: "sudo", fallback: .enter, arguments: ["timeout=5", "debug"]))
        #expect(request.encoded == good)
    }

    @Test func argumentsMayContainSpacesAndEquals() throws {
        let text = "touchauth-request 1\nuser bob\nservice login\nfallback none\narg reason=a b=c\nend\n"
        #expect(try Request.parse(Array(text.utf8)).arguments == ["reason=a b=c"])
    }

    @Test(arguments: [
        ("", Request.Error.incomplete),
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback none\nend", .incomplete),  // no final newline
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback none\n", .incomplete),
        ("touchauth-request 2\nuser alice\nservice sudo\nfallback none\nend\n", .malformed(line: 1)),
        ("touchauth-request 1\nservice sudo\nuser alice\nfallback none\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser \nservice sudo\nfallback none\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback none\nbogus x\nend\n", .malformed(line: 5)),
        ("touchauth-request 1\nuser al\u{1b}ice\nservice sudo\nfallback none\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser alice\r\nservice sudo\nfallback none\nend\n", .malformed(line: 2)),
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback none\nend\nextra\n", .incomplete),
        // The fallback line: present, in its place, one of two words.
        ("touchauth-request 1\nuser alice\nservice sudo\nend\n", .incomplete),
        ("touchauth-request 1\nuser alice\nservice sudo\narg debug\nend\n", .malformed(line: 4)),
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback Enter\nend\n", .malformed(line: 4)),
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback \nend\n", .malformed(line: 4)),
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback enter \nend\n", .malformed(line: 4)),
        ("touchauth-request 1\nuser alice\nservice sudo\narg debug\nfallback enter\nend\n", .malformed(line: 4)),
        ("touchauth-request 1\nuser alice\nservice sudo\nfallback enter\nfallback enter\nend\n", .malformed(line: 5)),
    ])
    func malformedRequestsAreRejected(text: String, expected: Request.Error) {
        #expect(throws: expected) { try Request.parse(Array(text.utf8)) }
    }

    @Test func tooManyArgumentsOrLinesAreRejected() {
        let args = (0..<33).map { "arg k\($0)=v\n" }.joined()
        let text = "touchauth-request 1\nuser a\nservice s\nfallback none\n" + args + "end\n"
        #expect(throws: Request.Error.tooLong) { try Request.parse(Array(text.utf8)) }
        let overlong = "touchauth-request 1\nuser " + String(repeating: "a", count: 1100) + "\nservice s\nfallback none\nend\n"
        #expect(throws: Request.Error.malformed(line: 2)) { try Request.parse(Array(overlong.utf8)) }
    }

    @Test func prefixesAreMatchedByteWiseLikeTheShimWritesThem() throws {
        // "user " + a combining mark: as Characters the space and the mark are one, and a
        // Character-wise prefix test refused a request the shim had written correctly.
        let text = "touchauth-request 1\nuser \u{301}x\nservice sudo\nfallback none\nend\n"
        #expect(try Request.parse(Array(text.utf8)).user == "\u{301}x")
        #expect(UserName("\u{6DD}/x") == nil)  // "\u{6DD}/" is one Character, and still a "/"
    }

    @Test func invalidUTF8IsRejected() {
        var bytes = Array("touchauth-request 1\nuser ".utf8)
        bytes += [0xff, 0xfe]
        bytes += Array("\nservice s\nfallback none\nend\n".utf8)
        #expect(throws: Request.Error.malformed(line: 2)) { try Request.parse(bytes) }
    }

    @Test func theFallbackLineRoundTrips() throws {
        for fallback in [Request.Fallback.enter, .noKey] {
            let request = Request(user: "u", service: "s", fallback: fallback, arguments: ["debug"])
            #expect(try Request.parse(Array(request.encoded.utf8)) == request)
        }
        #expect(Request(user: "u", service: "s").encoded.contains("\nfallback none\n"))
    }

    @Test func aPolkitDialogsFieldIsItsOwnFallback() throws {
        let request = Request(user: "u", service: "polkit-1", fallback: .field)
        #expect(request.encoded.contains("\nfallback field\n"))
        #expect(try Request.parse(Array(request.encoded.utf8)) == request)
    }

    @Test func theDisplayLineNamesAnXDisplayOnly() throws {
        let head = "touchauth-request 1\nuser alice\nservice xlock\nfallback none\nmessages one\n"
        let text = head + "display localhost:10.0\narg debug\nend\n"
        let request = try Request.parse(Array(text.utf8))
        #expect(request.display == "localhost:10.0" && request.arguments == ["debug"])
        #expect(request.encoded == text)
        #expect(try Request.parse(Array((head + "end\n").utf8)).display == nil)
        for bad in ["", ":0 pts/7", ":0/x", "\u{202e}:0", String(repeating: "0", count: WireProtocol.maxDisplayBytes + 1)] {
            #expect(throws: Request.Error.malformed(line: 6)) { try Request.parse(Array((head + "display \(bad)\nend\n").utf8)) }
        }
        // In its place: after approve, before the arguments.
        #expect(throws: Request.Error.malformed(line: 7)) {
            try Request.parse(Array((head + "arg debug\ndisplay :0\nend\n").utf8))
        }
    }

    @Test func theSessionLineNamesALogindSessionOnly() throws {
        let head = "touchauth-request 1\nuser alice\nservice sudo\nfallback enter\n"
        let text = head + "display :0\nsession c12\narg debug\nend\n"
        let request = try Request.parse(Array(text.utf8))
        #expect(request.session == "c12" && request.display == ":0" && request.arguments == ["debug"])
        #expect(request.encoded == text)
        #expect(try Request.parse(Array((head + "end\n").utf8)).session == nil)
        for bad in ["", "2 3", "../2", "2:0", "\u{202e}2", String(repeating: "2", count: 65)] {
            #expect(throws: Request.Error.malformed(line: 5)) { try Request.parse(Array((head + "session \(bad)\nend\n").utf8)) }
        }
        // In its place: after display, before the arguments.
        #expect(throws: Request.Error.malformed(line: 6)) {
            try Request.parse(Array((head + "session 2\ndisplay :0\nend\n").utf8))
        }
    }

    @Test func theOverlapLineCarriesAPid() {
        #expect(ReplyLine.overlap(4242).encoded == "overlap 4242\n")
    }

    @Test func theHintPromisesOnlyTheKeyTheShimOffers() {
        #expect(Message.fallbackKeyHint(title: "Enter Password").text == "[Enter Password] press Enter, or type your password")
        #expect(Message.fallbackHint(title: "Enter Password", timeout: 30).text == "[Enter Password] after 30 s")
        #expect(!Message.fallbackKeyHint(title: "x").isError)
    }

    @Test func replyLinesAreWireSafe() {
        #expect(ReplyLine.info("Place your finger").encoded == "info Place your finger\n")
        #expect(ReplyLine.error("two\nlines\u{7f}").encoded == "error two lines \n")
        #expect(ReplyLine.info("").encoded == "info  \n")
        #expect(ReplyLine.result(.authenticationFailed).encoded == "result authenticationFailed\n")
        #expect(ReplyLine.strikes(3).encoded == "strikes 3\n")
        #expect(ReplyLine.strikes(-1).encoded == "strikes 0\n")
        #expect(ReplyLine.strikes(123_456).encoded == "strikes 9999\n")
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
