// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

/// The request's optional lines (columns, messages, approve) and the prompt line of what a touch
/// approves. The module's side (argv, escaping) is pam/tests/test_approval.c; the real hosts are
/// tests/e2e/terminal.sh and clients_doas.sh.
@Suite struct ApprovalTests {
    func request(_ lines: String...) -> String {
        "touchauth-request 1\nuser alice\nservice sudo\nfallback enter\n" + lines.map { $0 + "\n" }.joined() + "arg debug\nend\n"
    }

    @Test func theOptionalLinesParseInOrderAndRoundTrip() throws {
        let text = request("columns 80", "messages one", "approve sudo command root apt upgrade")
        let parsed = try Request.parse(Array(text.utf8))
        #expect(parsed.columns == 80)
        #expect(parsed.oneMessage)
        #expect(parsed.approval == Approval(program: .sudo, kind: .command, user: "root", text: "apt upgrade"))
        #expect(parsed.arguments == ["debug"])
        #expect(parsed.encoded == text)
        let shell = try Request.parse(Array(request("approve doas shell bob ").utf8))
        #expect(shell.approval?.kind == .shell && shell.approval?.text == "")
        #expect(shell.encoded == request("approve doas shell bob "))
        let line = try Request.parse(Array(request("approve sudo line - sudo -v").utf8))
        #expect(line.approval?.user == "" && line.approval?.text == "sudo -v")
    }

    @Test(arguments: [
        "columns 19", "columns 1001", "columns 080x", "columns -80", "columns ", "messages all",
        "approve sudo command root", "approve sudo command - apt", "approve bash command root ls",
        "approve sudo frobnicate root ls", "approve sudo shell root ls", "approve su user  ",
        "approve sudo line root sudo -v",
        // C1 control (CSI), a bidi override: the module escapes them; a request with one is refused.
        "approve sudo command root a\u{9b}2J", "approve sudo command root \u{202e}txt",
        "approve sudo command ro\u{200f}ot ls",
        // The bidirectional isolates U+2066-U+2069 (LRI, RLI, FSI, PDI), as escaped as the overrides.
        "approve sudo command root \u{2066}txt", "approve sudo command root \u{2067}txt",
        "approve sudo command root \u{2068}txt", "approve sudo command root txt\u{2069}",
    ])
    func aBadOptionalLineIsMalformed(_ line: String) {
        #expect(throws: Request.Error.self) { try Request.parse(Array(request(line).utf8)) }
    }

    @Test func optionalLinesOutOfOrderOrTwiceAreMalformed() {
        for lines in [["messages one", "columns 80"], ["columns 80", "columns 80"], ["approve su user bob ", "messages one"]] {
            let text = "touchauth-request 1\nuser alice\nservice sudo\nfallback enter\n" + lines.map { $0 + "\n" }.joined() + "end\n"
            #expect(throws: Request.Error.self) { try Request.parse(Array(text.utf8)) }
        }
    }

    @Test func theLineFitsTheTerminalWithAnEllipsis() {
        let long = "sudo wants to run as root: " + String(repeating: "x", count: 500)
        let fitted = Approval.fitted(long, columns: 80)
        #expect(fitted.unicodeScalars.count == 79)
        #expect(fitted.hasSuffix("x\u{2026}"))
        #expect(Approval.fitted("short", columns: 80) == "short")
        // Without a terminal: a bounded size.
        #expect(Approval.fitted(long, columns: nil).unicodeScalars.count == Approval.maxColumnsWithoutTerminal)
    }

    @Test func wideCharactersCountTwoColumns() {
        let chinese = String(repeating: "\u{4f60}", count: 100)  // 你: two columns each
        let fitted = Approval.fitted(chinese, columns: 41)
        #expect(fitted == String(repeating: "\u{4f60}", count: 19) + "\u{2026}")
        #expect(Approval.fitted("e\u{301}", columns: 20) == "e\u{301}")  // a combining mark: none
    }

    @Test func theSentenceNamesTheCommandAndTheUser() {
        func text(_ kind: Approval.Kind, _ user: String, _ text: String) -> String? {
            Approval(program: kind == .user ? .su : .sudo, kind: kind, user: user, text: text).map { Message.approve($0).template.english }
        }
        #expect(text(.command, "root", "apt upgrade") == "sudo wants to run as root: apt upgrade")
        #expect(text(.shell, "bob", "") == "sudo wants to open a shell as bob")
        #expect(text(.edit, "root", "/etc/hosts") == "sudo wants to edit as root: /etc/hosts")
        #expect(text(.user, "bob", "") == "su wants to switch to the user bob")
        #expect(text(.line, "", "sudo -v") == "sudo asks you to approve: sudo -v")
    }
}
