// SPDX-License-Identifier: Apache-2.0
/// A sentence of the message table as gettext sees it, written as an ordinary interpolated
/// literal (as Foundation's `String.LocalizationValue`): the literal text is the msgid, each
/// interpolated value becomes a placeholder — `%s`, or `%1$s`, `%2$s`, ... when there are
/// several, so a translation may reorder them — and a literal `%` is `%%`. po/extract.py
/// applies the same rule to the literals of Message.swift to write po/touchauth.pot.
///
/// Substitution is ours, never printf: a translation whose placeholders do not match its
/// msgid is ignored (the English is shown), so a bad catalog cannot crash the helper.
public struct LocalizedText: Equatable, Sendable, ExpressibleByStringInterpolation {
    /// The gettext msgid.
    public let msgid: String
    public let arguments: [Argument]

    /// An interpolated value. A string is itself looked up (finger names, the default
    /// `fallback_title`); text with no msgid, such as an administrator's own title, stays as
    /// written. Numbers are shown as they are.
    public enum Argument: Equatable, Sendable {
        case text(String)
        case number(String)
    }

    public init(stringLiteral value: String) {
        msgid = LocalizedText.escape(value)
        arguments = []
    }

    public init(stringInterpolation: StringInterpolation) {
        let count = stringInterpolation.arguments.count
        var msgid = ""
        var index = 0
        for piece in stringInterpolation.pieces {
            if let literal = piece {
                msgid += LocalizedText.escape(literal)
            } else {
                index += 1
                msgid += count == 1 ? "%s" : "%\(index)$s"
            }
        }
        self.msgid = msgid
        arguments = stringInterpolation.arguments
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        /// Literal text, or nil where an argument goes.
        var pieces: [String?] = []
        var arguments: [Argument] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { pieces.append(literal) }

        public mutating func appendInterpolation(_ value: String) {
            pieces.append(nil)
            arguments.append(.text(value))
        }

        public mutating func appendInterpolation<T: BinaryInteger>(_ value: T) {
            pieces.append(nil)
            arguments.append(.number(String(value)))
        }

        /// Anything else (a user name, an error) as it describes itself.
        public mutating func appendInterpolation<T>(_ value: T) {
            pieces.append(nil)
            arguments.append(.text(String(describing: value)))
        }
    }

    /// The English sentence.
    public var english: String { localized(by: { _ in nil }) }

    /// The sentence through `catalog` (msgid -> translation, nil when there is none).
    /// `translatingArguments: false` shows every value as given: the command line's user
    /// names, paths and fprintd finger names are never looked up.
    public func localized(by catalog: (String) -> String?, translatingArguments: Bool = true) -> String {
        let values = arguments.map { argument in
            switch argument {
            case .text(let text): (translatingArguments ? catalog(text) : nil) ?? text
            case .number(let digits): digits
            }
        }
        if let translation = catalog(msgid), let text = LocalizedText.substitute(translation, values) {
            return text
        }
        return LocalizedText.substitute(msgid, values) ?? msgid
    }

    static func escape(_ literal: String) -> String {
        literal.split(separator: "%", omittingEmptySubsequences: false).joined(separator: "%%")
    }

    /// Fills `%s` / `%N$s` with `values` and turns `%%` into `%`. Nil when the format uses
    /// another directive, mixes the two forms, names a value that does not exist, or leaves
    /// one out (a translation that drops a value would silently lose information).
    static func substitute(_ format: String, _ values: [String]) -> String? {
        var out = ""
        var used = Set<Int>()
        var sequential = 0
        var positional = false
        var scalars = format.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else {
                out.unicodeScalars.append(scalar)
                continue
            }
            if scalars.first == "%" {
                scalars.removeFirst()
                out += "%"
                continue
            }
            var digits = ""
            while let next = scalars.first, ("0"..."9").contains(next) {
                digits.unicodeScalars.append(next)
                scalars.removeFirst()
            }
            let index: Int
            if digits.isEmpty {
                guard scalars.popFirst() == "s", !positional || used.isEmpty else { return nil }
                index = sequential
                sequential += 1
            } else {
                guard scalars.popFirst() == "$", scalars.popFirst() == "s", sequential == 0,
                    let number = Int(digits), number >= 1
                else { return nil }
                positional = true
                index = number - 1
            }
            guard index < values.count else { return nil }
            used.insert(index)
            out += values[index]
        }
        guard used.count == values.count else { return nil }
        return out
    }
}

extension Message {
    /// Where translations come from: msgid -> translation, nil when there is none. The
    /// program sets it once at start-up, before any other thread runs (TouchAuthPlatform's
    /// `Gettext.start()` points it at gettext's `dgettext`); the core and its tests keep the
    /// default, English.
    nonisolated(unsafe) public static var catalog: @Sendable (String) -> String? = { _ in nil }
}
