// SPDX-License-Identifier: Apache-2.0
/// One user's persistent fingerprint state (docs/POLICY.md#lockout, docs/POLICY.md#presence): consecutive strikes, the lockout,
/// and what the trust rules need to know about the last password authentication. The rules that
/// change strikes and lockout: Strikes.swift; the file: StateStore.
public struct UserState: Equatable, Sendable {
    /// Non-matching scans in a row.
    public var strikes = 0
    /// When the lockout began (seconds since the epoch), nil when not locked.
    public var lockedAt: Int?
    /// When the password last authenticated this user (seconds since the epoch).
    public var passwordAt: Int?
    /// `/proc/sys/kernel/random/boot_id` at that time.
    public var passwordBootID: String?
    /// The enrolled prints at that time (`PrintSet.hash`).
    public var printsHash: String?

    public init(strikes: Int = 0, lockedAt: Int? = nil, passwordAt: Int? = nil,
                passwordBootID: String? = nil, printsHash: String? = nil) {
        self.strikes = strikes
        self.lockedAt = lockedAt
        self.passwordAt = passwordAt
        self.passwordBootID = passwordBootID
        self.printsHash = printsHash
    }

    /// Whether `locked_at` is set. A state at or over the threshold without it is locked too
    /// (`reachedThreshold`); `TrustPolicy.decide` weighs both.
    public var isLocked: Bool { lockedAt != nil }

    // MARK: the file format

    public static let header = "touchauth-state 1"

    public enum DecodeError: Error, Equatable { case corrupt(String) }

    /// The file: a versioned header, then exactly these lines in this order; `-` for none.
    public var encoded: String {
        func field(_ value: CustomStringConvertible?) -> String { value.map { "\($0)" } ?? "-" }
        return """
            \(UserState.header)
            strikes \(strikes)
            locked_at \(field(lockedAt))
            password_at \(field(passwordAt))
            password_boot_id \(field(passwordBootID))
            prints_hash \(field(printsHash))

            """
    }

    /// Strict: anything but exactly the format above is corrupt (and the caller treats the
    /// user as locked: the password is always there).
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> UserState {
        guard bytes.count <= 4096, let text = String(validating: bytes, as: UTF8.self) else {
            throw .corrupt("not text")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.last == "" else { throw .corrupt("truncated") }
        lines.removeLast()
        let names = ["strikes", "locked_at", "password_at", "password_boot_id", "prints_hash"]
        guard lines.count == names.count + 1, lines[0] == header else { throw .corrupt("bad header or length") }
        var values: [String?] = []
        for (name, line) in zip(names, lines.dropFirst()) {
            guard line.hasPrefix(name + " ") else { throw .corrupt("expected \(name)") }
            let value = String(line.dropFirst(name.count + 1))
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else { throw .corrupt("bad \(name)") }
            values.append(value == "-" ? nil : value)
        }
        func number(_ index: Int) throws(DecodeError) -> Int? {
            guard let text = values[index] else { return nil }
            guard text.utf8.count <= 18, text.allSatisfy(\.isNumber), let n = Int(text) else {
                throw .corrupt("bad \(names[index])")
            }
            return n
        }
        guard let strikes = try number(0) else { throw .corrupt("no strikes") }
        return UserState(strikes: strikes, lockedAt: try number(1), passwordAt: try number(2),
                         passwordBootID: values[3], printsHash: values[4])
    }
}
