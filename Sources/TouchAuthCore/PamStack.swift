// SPDX-License-Identifier: Apache-2.0
/// One PAM service's stack of one type (`auth`) as libpam builds and runs it, for
/// `touchauth doctor`: a pure value, its files read through a closure. Modelled on Linux-PAM's
/// libpam/pam_handlers.c (`_pam_parse_conf_file`, `_pam_assemble_line`, `_pam_StrTok`),
/// pam_misc.c (`_pam_parse_control`) and pam_dispatch.c (`_pam_dispatch_aux`), 1.5.2 (Debian
/// 12) and unchanged in dispatch through 1.6:
/// - `include X` (and Debian's `@include X`) puts X's lines of the type in place: one scope,
///   jumps count through them, `done` and `die` there end the whole stack;
/// - `substack X` is its own frame: `done`, `die` and a jump that runs past its end end the
///   substack only, `reset` goes back to the state at its start, and a jump in the parent
///   counts the whole substack as one line. There is no result of the substack line itself:
///   its modules change the one state (impression and status) the parent goes on with, so a
///   substack that failed stays failed for the parent, whatever succeeds after it (only
///   `reset` undoes that);
/// - a line libpam cannot use (a file it cannot read, no control, no module, an unknown type)
///   stays in the stack and fails with PAM_PERM_DENIED under its control.
public struct PamStack: Equatable, Sendable {
    public let type: String
    public let items: [Item]

    public indirect enum Item: Equatable, Sendable {
        case module(PamLine)
        /// The `substack` line and the frame it runs.
        case substack(PamLine, [Item])
    }

    /// libpam's PAM_SUBSTACK_MAX_LEVEL; includes are held to it too (libpam has no limit on
    /// them: a loop of includes would never end).
    public static let maxDepth = 16

    /// Reads `service` and what it includes through `read` (a name as written after `include`,
    /// `substack` or `@include`, or the service's own name -> its text; nil: not readable).
    /// Nil when the service itself is not readable.
    public init?(service: String, type: String = "auth", read: (String) -> String?) {
        guard let text = read(service) else { return nil }
        self.type = type
        items = PamStack.parse(text, file: service, type: type, depth: 0, read: read)
    }

    public init(type: String = "auth", items: [Item]) {
        self.type = type
        self.items = items
    }

    /// Every module line in the order libpam holds them (substacks in place).
    public var lines: [PamLine] {
        func flat(_ items: [Item]) -> [PamLine] {
            items.flatMap { item -> [PamLine] in
                switch item {
                case .module(let line): [line]
                case .substack(_, let inner): flat(inner)
                }
            }
        }
        return flat(items)
    }

    static func parse(_ text: String, file: String, type: String, depth: Int, read: (String) -> String?) -> [Item] {
        var items: [Item] = []
        for (number, line) in logicalLines(text) {
            var rest = Substring(line)
            guard var word = token(&rest) else { continue }
            if word == "@include" {  // Debian: every line of the file, each under its own type
                items += included(token(&rest), from: file, number: number, type: type, depth: depth, read: read)
                continue
            }
            var broken = false
            if word.hasPrefix("-") { word.removeFirst() }  // "do not log a module that is missing"
            let known = ["auth", "account", "password", "session"].contains(word.lowercased())
            if !known {
                broken = true  // libpam: an illegal type is a failing line of the type asked for
            } else if word.lowercased() != type {
                continue
            }
            let control = token(&rest)
            switch control?.lowercased() {
            case "include", "substack":
                let name = token(&rest)
                let here = PamLine(file: file, number: number, type: type, control: control!, module: name ?? "", args: [])
                if control!.lowercased() == "include" {
                    items += included(name, from: file, number: number, type: type, depth: depth, read: read)
                } else if depth + 1 < maxDepth, let name, let inner = read(name) {
                    items.append(.substack(here, parse(inner, file: name, type: type, depth: depth + 1, read: read)))
                } else {
                    // libpam adds the substack, then a failing line in its place.
                    items.append(.substack(here, []))
                    items.append(.module(PamLine(brokenIn: file, number: number, type: type, control: "")))
                }
            default:
                let module = token(&rest)
                var args: [String] = []
                while let arg = token(&rest) { args.append(arg) }
                if broken || control == nil || module == nil {
                    // Failing under its own control; with none, `bad` for every value.
                    items.append(.module(PamLine(brokenIn: file, number: number, type: type, control: control ?? "")))
                } else {
                    items.append(.module(PamLine(file: file, number: number, type: type, control: control!, module: module!, args: args)))
                }
            }
        }
        return items
    }

    private static func included(
        _ name: String?, from file: String, number: Int, type: String, depth: Int, read: (String) -> String?
    ) -> [Item] {
        if depth + 1 < maxDepth, let name, let text = read(name) {
            return parse(text, file: name, type: type, depth: depth + 1, read: read)
        }
        return [.module(PamLine(brokenIn: file, number: number, type: type, control: ""))]
    }

    /// `_pam_assemble_line`: text up to a `#` ends the line; a backslash at the end of a line
    /// without one joins the next line; blank lines and lines that are only a comment are
    /// skipped (a continued line goes on after them). Each with the number of its first line.
    static func logicalLines(_ text: String) -> [(Int, String)] {
        var out: [(Int, String)] = []
        var pending = ""
        var start = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = raw.drop(while: isBlank)
            if content.isEmpty || content.first == "#" { continue }
            if pending.isEmpty { start = index + 1 }
            if let hash = raw.firstIndex(of: "#") {
                out.append((start, pending + String(raw[..<hash])))
                pending = ""
                continue
            }
            var line = raw
            while let last = line.last, isBlank(last) { line.removeLast() }
            if line.last == "\\" {
                pending += String(line.dropLast()) + " "
                continue
            }
            out.append((start, pending + String(line)))
            pending = ""
        }
        if !pending.isEmpty { out.append((start, pending)) }
        return out
    }

    /// libpam's blanks: a carriage return is not one.
    static func isBlank(_ c: Character) -> Bool { c == " " || c == "\t" }

    /// `_pam_StrTok` on blanks: a word, or `[...]` as one word without its brackets (`\]` is a
    /// `]` inside).
    static func token(_ rest: inout Substring) -> String? {
        rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        guard let first = rest.first else { return nil }
        var word = ""
        if first == "[" {
            rest = rest.dropFirst()
            while let c = rest.first, c != "]" {
                rest = rest.dropFirst()
                if c == "\\", rest.first == "]" {
                    word.append("]")
                    rest = rest.dropFirst()
                } else {
                    word.append(c)
                }
            }
            rest = rest.dropFirst()  // the "]"
        } else {
            while let c = rest.first, c != " ", c != "\t", c != "\n" {
                word.append(c)
                rest = rest.dropFirst()
            }
        }
        return word
    }
}

/// A module's return value, in libpam's order (`_pam_token_returns`).
public enum PamResult: String, CaseIterable, Sendable {
    case success, openErr = "open_err", symbolErr = "symbol_err", serviceErr = "service_err", systemErr = "system_err"
    case bufErr = "buf_err", permDenied = "perm_denied", authErr = "auth_err", credInsufficient = "cred_insufficient"
    case authinfoUnavail = "authinfo_unavail", userUnknown = "user_unknown", maxtries, newAuthtokReqd = "new_authtok_reqd"
    case acctExpired = "acct_expired", sessionErr = "session_err", credUnavail = "cred_unavail", credExpired = "cred_expired"
    case credErr = "cred_err", noModuleData = "no_module_data", convErr = "conv_err", authtokErr = "authtok_err"
    case authtokRecoverErr = "authtok_recover_err", authtokLockBusy = "authtok_lock_busy"
    case authtokDisableAging = "authtok_disable_aging", tryAgain = "try_again", ignore, abort
    case authtokExpired = "authtok_expired", moduleUnknown = "module_unknown", badItem = "bad_item", convAgain = "conv_again"
    case incomplete
}

/// What libpam does with a module's result (`_PAM_ACTION_*`; a positive number skips lines).
public enum PamAction: Hashable, Sendable {
    case ignore, ok, done, bad, die, reset
    case jump(Int)
}

/// One line of a stack: where it is written, its control as libpam reads it, the module.
public struct PamLine: Equatable, Hashable, Sendable {
    public let file: String
    /// The line of `file` it starts on (1 = the first).
    public let number: Int
    public let type: String
    /// As written, without brackets.
    public let control: String
    /// As written (a path or a name); "" for a line libpam cannot use.
    public let module: String
    public let args: [String]
    /// A line libpam keeps but cannot run: it returns PAM_PERM_DENIED.
    public let broken: Bool
    let actions: [PamResult: PamAction]

    public init(file: String, number: Int, type: String = "auth", control: String, module: String, args: [String]) {
        self.file = file
        self.number = number
        self.type = type
        self.control = control
        self.module = module
        self.args = args
        broken = false
        actions = PamLine.actions(control)
    }

    init(brokenIn file: String, number: Int, type: String, control: String) {
        self.file = file
        self.number = number
        self.type = type
        self.control = control
        module = ""
        args = []
        broken = true
        actions = control.isEmpty ? PamLine.fill([:], .bad) : PamLine.actions(control)
    }

    /// The module's name: `/lib/security/pam_unix.so` -> `pam_unix` (libpam's
    /// extract_modulename: the base name up to its last dot).
    public var moduleName: String {
        let base = module.split(separator: "/").last.map(String.init) ?? module
        guard let dot = base.lastIndex(of: ".") else { return base }
        return String(base[..<dot])
    }

    /// The file name as written: `pam_fprintd.so`.
    public var moduleFile: String { module.split(separator: "/").last.map(String.init) ?? module }

    public func action(for result: PamResult) -> PamAction { actions[result] ?? .bad }

    /// The control words (case-insensitive, as libpam's strcasecmp), else `[value=action ...]`.
    static func actions(_ control: String) -> [PamResult: PamAction] {
        var table: [PamResult: PamAction] = [:]
        switch control.lowercased() {
        case "required":
            table = [.success: .ok, .newAuthtokReqd: .ok, .ignore: .ignore]
            return fill(table, .bad)
        case "requisite":
            table = [.success: .ok, .newAuthtokReqd: .ok, .ignore: .ignore]
            return fill(table, .die)
        case "optional":
            table = [.success: .ok, .newAuthtokReqd: .ok]
            return fill(table, .ignore)
        case "sufficient":
            table = [.success: .done, .newAuthtokReqd: .done]
            return fill(table, .ignore)
        default:
            return fill(parse(control) ?? fill([:], .bad), .bad)
        }
    }

    static func fill(_ table: [PamResult: PamAction], _ action: PamAction) -> [PamResult: PamAction] {
        var table = table
        for result in PamResult.allCases where table[result] == nil { table[result] = action }
        return table
    }

    /// `_pam_parse_control`: `value=action` pairs, blanks around each part; names and actions
    /// match by prefix and case (strncmp), a number is a jump (not 0). `default=` gives its
    /// action to every value not set yet. Nil on a syntax error (then every value is `bad`).
    static func parse(_ control: String) -> [PamResult: PamAction]? {
        let names = PamResult.allCases.map(\.rawValue) + ["default"]
        let actionWords: [(String, PamAction)] = [("ignore", .ignore), ("ok", .ok), ("done", .done), ("bad", .bad),
                                                  ("die", .die), ("reset", .reset)]
        var table: [PamResult: PamAction] = [:]
        var rest = Substring(control)
        func skipBlanks() { rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" } }
        while true {
            skipBlanks()
            if rest.isEmpty { return table }
            guard let name = names.first(where: { rest.hasPrefix($0) }) else { return nil }
            rest = rest.dropFirst(name.count)
            if rest.isEmpty { return nil }
            skipBlanks()
            guard rest.first == "=" else { return nil }
            rest = rest.dropFirst()
            skipBlanks()
            if rest.isEmpty { return nil }
            let action: PamAction
            if let known = actionWords.first(where: { rest.hasPrefix($0.0) }) {
                rest = rest.dropFirst(known.0.count)
                action = known.1
            } else {
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                guard !digits.isEmpty, let n = Int(digits), n > 0 else { return nil }
                rest = rest.dropFirst(digits.count)
                action = .jump(n)
            }
            if let result = PamResult(rawValue: name) {
                table[result] = action
            } else {
                table = fill(table, action)
            }
        }
    }
}
