// SPDX-License-Identifier: Apache-2.0
internal import CConfig

/// The shim <-> helper protocol, version 1. The contract is docs/PROTOCOL.md; this file parses the
/// request (strictly) and writes the reply (which the shim parses strictly in pam/protocol.c).
public enum WireProtocol {
    public static let requestHeader = "touchauth-request 1"
    public static let replyHeader = "touchauth 1"
    // The limits are the module's (pam/contract.h).
    /// Bytes in one line including its `\n`.
    public static let maxLineBytes = Int(TA_LINE_MAX)
    public static let maxRequestLines = Int(TA_REQUEST_LINES_MAX)
    /// The `columns` line's bounds.
    public static let columns = Int(TA_COLUMNS_MIN)...Int(TA_COLUMNS_MAX)
    public static let maxArguments = Int(TA_REQUEST_ARGS_MAX)
    public static let maxReplyLines = Int(TA_REPLY_LINES_MAX)
    public static let maxTextBytes = Int(TA_TEXT_MAX)
    /// The `display` line's bounds (the rule: contract.h `ta_display_ok`), for tests and the fuzzer.
    public static let maxDisplayBytes = Int(TA_DISPLAY_MAX)
    public static let displayCharacters = Set(TA_DISPLAY_CHARS.utf8)
    /// The `overlap` line's pid: 1 to the kernel's PID_MAX_LIMIT.
    public static let pids = 1...Int(TA_PID_MAX)
}

/// What the shim asks: verify this user for this service, with these module arguments.
public struct Request: Equatable, Sendable {
    public var user: String
    public var service: String
    /// What the shim offers for the fallback, so the hint tells the truth.
    public var fallback: Fallback
    public var arguments: [String]
    /// The `columns` line: the width of the terminal the lines are shown on.
    public var columns: Int?
    /// The `messages one` line: the client shows only the latest message (pam/clients.c).
    public var oneMessage: Bool
    /// The `approve` line: what the touch approves (pam/approval.h).
    public var approval: Approval?
    /// The `display` line: the X display of a request (PAM_XDISPLAY), for its name on an
    /// overlapping prompt when its host has no terminal.
    public var display: String?
    /// The `session` line: the logind session whose lock decides (docs/POLICY.md#a-locked-screen).
    /// The module leaves it out for a lock screen's own conversation and where logind names none.
    public var session: String?

    /// The `fallback` line: which key, if any, the shim takes as "use the password".
    public enum Fallback: String, Equatable, Sendable {
        /// The shim owns the terminal: Enter, or typing the password, ends the prompt.
        case enter
        /// No key (no terminal, or an empty `fallback_title`): the timeout or the wrong fingers.
        case noKey = "none"
        /// A polkit agent's password field beside the prompt (pam/agent.h): what is typed there
        /// ends the prompt, so no hint is needed.
        case field
    }

    public init(
        user: String, service: String, fallback: Fallback = .noKey, arguments: [String] = [],
        columns: Int? = nil, oneMessage: Bool = false, approval: Approval? = nil, display: String? = nil,
        session: String? = nil
    ) {
        self.user = user
        self.service = service
        self.fallback = fallback
        self.arguments = arguments
        self.columns = columns
        self.oneMessage = oneMessage
        self.approval = approval
        self.display = display
        self.session = session
    }

    public enum Error: Swift.Error, Equatable {
        case malformed(line: Int)
        case tooLong
        case incomplete
    }

    /// Parses the request bytes, which must end right after `end\n`.
    public static func parse(_ bytes: [UInt8]) throws(Request.Error) -> Request {
        let text = try lines(bytes)
        // Fixed shape: header, user, service, fallback, [columns], [messages], [approve], [display],
        // [session], arg*, end.
        guard text.count >= 5 else { throw .incomplete }
        guard text[0] == WireProtocol.requestHeader else { throw .malformed(line: 1) }
        guard let user = text[1].value(after: "user "), !user.isEmpty else { throw .malformed(line: 2) }
        guard let service = text[2].value(after: "service "), !service.isEmpty else { throw .malformed(line: 3) }
        guard let word = text[3].value(after: "fallback "), let fallback = Fallback(rawValue: word) else {
            throw .malformed(line: 4)
        }
        guard text[text.count - 1] == "end" else { throw .incomplete }
        var first = 4
        let columns: Int? = try optionalLine("columns ", text, &first) { value in
            guard value.utf8.count <= 4, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let number = Int(value), WireProtocol.columns.contains(number)
            else { return nil }
            return number
        }
        let oneMessage = try optionalLine("messages ", text, &first) { $0 == "one" ? true : nil } ?? false
        let approval = try optionalLine("approve ", text, &first, Approval.init(line:))
        let display: String? = try optionalLine("display ", text, &first) { value in
            // The rule is contract.h's; a NUL would hide the rest of the value from it.
            !value.utf8.contains(0) && ta_display_ok(value) ? value : nil
        }
        let session: String? = try optionalLine("session ", text, &first) { value in
            !value.utf8.contains(0) && ta_session_ok(value) ? value : nil
        }
        var arguments: [String] = []
        for index in first..<(text.count - 1) {
            // Verbatim, even empty: the shim passes every module argument as PAM gave it.
            guard let argument = text[index].value(after: "arg ") else {
                throw .malformed(line: index + 1)
            }
            arguments.append(argument)
        }
        guard arguments.count <= WireProtocol.maxArguments else { throw .tooLong }
        return Request(
            user: user, service: service, fallback: fallback, arguments: arguments,
            columns: columns, oneMessage: oneMessage, approval: approval, display: display, session: session)
    }

    /// The request's lines, each under the line limit, without control bytes, valid UTF-8.
    private static func lines(_ bytes: [UInt8]) throws(Request.Error) -> [String] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.last?.isEmpty == true else { throw .incomplete }
        lines.removeLast()
        guard lines.count <= WireProtocol.maxRequestLines else { throw .tooLong }
        var text: [String] = []
        for (index, line) in lines.enumerated() {
            guard line.count < WireProtocol.maxLineBytes,
                !line.contains(where: { $0 < 0x20 || $0 == 0x7f }),
                let string = String(validating: line, as: UTF8.self)
            else { throw .malformed(line: index + 1) }
            text.append(string)
        }
        return text
    }

    /// The optional line at `index`, when it has this prefix: its value parsed, `index` moved
    /// past it. A value that does not parse makes the request malformed.
    private static func optionalLine<T>(
        _ prefix: String, _ text: [String], _ index: inout Int, _ parse: (String) -> T?
    ) throws(Request.Error) -> T? {
        guard let value = text[index].value(after: prefix) else { return nil }
        guard let parsed = parse(value) else { throw .malformed(line: index + 1) }
        index += 1
        return parsed
    }

    /// The request as the shim writes it (used by tests and by `touchauth` tools that drive
    /// the helper the way the shim does).
    public var encoded: String {
        var out = "\(WireProtocol.requestHeader)\nuser \(user)\nservice \(service)\nfallback \(fallback.rawValue)\n"
        if let columns { out += "columns \(columns)\n" }
        if oneMessage { out += "messages one\n" }
        if let approval { out += "approve \(approval.line)\n" }
        if let display { out += "display \(display)\n" }
        if let session { out += "session \(session)\n" }
        for argument in arguments { out += "arg \(argument)\n" }
        return out + "end\n"
    }
}

/// One line of the helper's reply.
public enum ReplyLine: Equatable, Sendable {
    case info(String)
    case error(String)
    /// The user's strikes in a row when the attempt ended, for the module's audit line.
    case strikes(Int)
    /// The helper pid of the other request armed at once (docs/POLICY.md#one-request-at-a-time),
    /// for the module's audit line.
    case overlap(Int32)
    case result(Outcome)

    /// The line with its `\n`. Text is made safe for the wire: control characters become
    /// spaces, an empty text becomes one space, and a text over the limit is cut at a
    /// character boundary.
    public var encoded: String {
        switch self {
        case .info(let text): "info \(ReplyLine.wireSafe(text))\n"
        case .error(let text): "error \(ReplyLine.wireSafe(text))\n"
        case .strikes(let count): "strikes \(min(max(count, 0), 9999))\n"
        case .overlap(let pid): "overlap \(pid)\n"
        case .result(let outcome): "result \(outcome.rawValue)\n"
        }
    }

    static func wireSafe(_ text: String) -> String {
        var out = ""
        var bytes = 0
        for scalar in text.unicodeScalars {
            let safe: Unicode.Scalar = (scalar.value < 0x20 || scalar.value == 0x7f) ? " " : scalar
            let width = String(safe).utf8.count
            if bytes + width > WireProtocol.maxTextBytes { break }
            out.unicodeScalars.append(safe)
            bytes += width
        }
        return out.isEmpty ? " " : out
    }
}

extension String {
    /// Byte-wise, as the shim writes it: `hasPrefix` compares Characters, and a combining mark
    /// right after the prefix's space would glue onto it and hide the prefix.
    fileprivate func value(after prefix: String) -> String? {
        let bytes = Array(utf8)
        guard bytes.starts(with: prefix.utf8) else { return nil }
        return String(decoding: bytes[prefix.utf8.count...], as: UTF8.self)
    }
}
