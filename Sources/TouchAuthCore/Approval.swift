// SPDX-License-Identifier: Apache-2.0
internal import CConfig
/// What a touch approves: the request's `approve` line (docs/PROTOCOL.md), which the module takes
/// from its host's own argv and escapes (pam/approval.c), checked again here, and fitted to one
/// line of the terminal or a bounded size elsewhere.
public struct Approval: Equatable, Sendable {
    public enum Program: String, Sendable { case sudo, doas, su }
    public enum Kind: String, Sendable {
        /// Run `text` as `user`.
        case command
        /// A shell as `user` (sudo -i, sudo -s, doas -s).
        case shell
        /// Edit the files `text` as `user` (sudoedit).
        case edit
        /// Become `user` (su).
        case user
        /// An invocation the module does not take apart: `text` is the whole command line.
        case line
    }

    public let program: Program
    public let kind: Kind
    public let user: String
    public let text: String

    /// At most what pam/contract.h allows, with room for the ellipsis.
    static let maxUserBytes = Int(TA_APPROVAL_USER_MAX)
    static let maxTextBytes = Int(TA_APPROVAL_TEXT_MAX)
    /// Display columns of the line in a conversation without a terminal (a dialog, a greeter).
    public static let maxColumnsWithoutTerminal = 160

    public init?(program: Program, kind: Kind, user: String, text: String) {
        guard user.utf8.count <= Approval.maxUserBytes, text.utf8.count <= Approval.maxTextBytes,
            !user.contains(" "), Approval.isEscaped(user), Approval.isEscaped(text)
        else { return nil }
        switch kind {
        case .command, .edit: guard !user.isEmpty, !text.isEmpty else { return nil }
        case .shell, .user: guard !user.isEmpty, text.isEmpty else { return nil }
        case .line: guard user.isEmpty, !text.isEmpty else { return nil }
        }
        (self.program, self.kind, self.user, self.text) = (program, kind, user, text)
    }

    /// `PROGRAM KIND USER TEXT`, USER `-` for none.
    init?(line: String) {
        let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, let program = Program(rawValue: String(fields[0])),
            let kind = Kind(rawValue: String(fields[1]))
        else { return nil }
        let user = fields[2] == "-" ? "" : String(fields[2])
        self.init(program: program, kind: kind, user: user, text: String(fields[3]))
    }

    var line: String { "\(program.rawValue) \(kind.rawValue) \(user.isEmpty ? "-" : user) \(text)" }

    /// Nothing that moves the cursor or reorders the line: what pam/approval.c escapes.
    static func isEscaped(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ta_approval_escapes(UInt($0.value)) }
    }

    /// `line` in at most `columns - 1` columns of a terminal, or `maxColumnsWithoutTerminal`
    /// without one: what does not fit is cut, and an ellipsis says so.
    public static func fitted(_ line: String, columns: Int?) -> String {
        let room = columns.map { $0 - 1 } ?? maxColumnsWithoutTerminal
        var width = 0
        for scalar in line.unicodeScalars { width += columnsOf(scalar) }
        guard width > room else { return line }
        var out = String.UnicodeScalarView()
        width = 0
        for scalar in line.unicodeScalars {
            let next = columnsOf(scalar)
            if width + next + 1 > room { break }
            out.append(scalar)
            width += next
        }
        return String(out) + "\u{2026}"
    }

    /// A terminal's columns for one character: 0 for a combining mark, 2 for the wide
    /// characters of East Asian scripts and emoji, else 1 (wcwidth's rules, in brief).
    static func columnsOf(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        switch scalar.value {
        case 0x1100...0x115f, 0x2e80...0x303e, 0x3041...0x33ff, 0x3400...0x4dbf, 0x4e00...0x9fff,
            0xa000...0xa4cf, 0xac00...0xd7a3, 0xf900...0xfaff, 0xfe30...0xfe4f, 0xff00...0xff60,
            0xffe0...0xffe6, 0x1f300...0x1f64f, 0x1f900...0x1f9ff, 0x20000...0x3fffd:
            return 2
        default:
            return 1
        }
    }
}
