// SPDX-License-Identifier: Apache-2.0

/// One armed prompt, as the registry of armed requests holds it (TouchAuthPlatform/ArmedRegistry:
/// one root-only file per prompt under /run/touchauth, docs/POLICY.md#one-request-at-a-time).
/// Written by the helper that arms, read by the next one; the file format is these lines, in
/// this order, each once:
///
///     touchauth-armed 1
///     pid <helper pid>
///     start <the helper's start time, /proc/PID/stat field 22>
///     host <the PAM host's pid>
///     uid <uid>
///     since <CLOCK_BOOTTIME milliseconds when it armed>
///     where <terminal, or the service without one>
///     line <what the prompt approves: the approval sentence, or the service's reason>
///
/// Pure: no I/O. Text fields are printable (no control character), as a reply line must be.
public struct ArmedRequest: Equatable, Sendable {
    public var pid: Int32
    public var start: UInt64
    public var host: Int32
    public var uid: UInt32
    public var since: Int
    public var place: String
    public var line: String

    public static let header = "touchauth-armed 1"
    public static let maxBytes = 4096
    static let maxText = 1000

    public init(pid: Int32, start: UInt64, host: Int32, uid: UInt32, since: Int, place: String, line: String) {
        self.pid = pid
        self.start = start
        self.host = host
        self.uid = uid
        self.since = since
        self.place = ArmedRequest.printable(place)
        self.line = ArmedRequest.printable(line)
    }

    public enum DecodeError: Error, Equatable { case malformed(String) }

    public var encoded: [UInt8] {
        Array("""
        \(ArmedRequest.header)
        pid \(pid)
        start \(start)
        host \(host)
        uid \(uid)
        since \(since)
        where \(place)
        line \(line)

        """.utf8)
    }

    /// Strict: the header, every field once in order, nothing after; numbers in ASCII digits.
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> ArmedRequest {
        guard bytes.count <= maxBytes, bytes.last == UInt8(ascii: "\n"),
              let text = String(validating: bytes, as: UTF8.self)
        else { throw .malformed("not a text of lines") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let keys = ["pid", "start", "host", "uid", "since", "where", "line"]
        guard lines.count == keys.count + 1, lines[0] == header else { throw .malformed("header or line count") }
        var values: [String] = []
        for (key, line) in zip(keys, lines.dropFirst()) {
            guard line.hasPrefix(key + " ") else { throw .malformed("expected \(key)") }
            let value = String(line.dropFirst(key.count + 1))
            guard !value.isEmpty, value.utf8.count <= maxText, value == printable(value) else {
                throw .malformed("bad \(key)")
            }
            values.append(value)
        }
        func number<T: FixedWidthInteger>(_ text: String) throws(DecodeError) -> T {
            guard text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = T(text), value > 0 || T.self == UInt32.self
            else { throw .malformed("bad number \(text)") }
            return value
        }
        return ArmedRequest(
            pid: try number(values[0]), start: try number(values[1]), host: try number(values[2]),
            uid: try number(values[3]), since: try number(values[4]), place: values[5], line: values[6])
    }

    /// Control characters (and DEL) as `?`, at most 1000 bytes, never empty: what a reply line may carry.
    static func printable(_ text: String) -> String {
        var out = String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 || (scalar.value >= 0x7f && scalar.value < 0xa0) ? "?" : scalar
        }))
        while out.utf8.count > maxText { out.removeLast() }
        return out.isEmpty ? "?" : out
    }

    /// Seconds it had been armed at `now` (CLOCK_BOOTTIME milliseconds).
    public func waited(at now: Int) -> Int { max(0, now - since) / 1000 }
}
