// SPDX-License-Identifier: Apache-2.0
/// One user's persistent fingerprint state (DESIGN.md §2, §3): consecutive strikes, the lockout,
/// and what the trust rules need to know about the last password authentication.
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

    /// At or over `threshold` strikes: locked, whether or not `locked_at` reached the disk (the
    /// helper can be killed while writing the strike that locks; the threshold can be lowered).
    public func reachedThreshold(_ threshold: Int) -> Bool { strikes >= threshold }

    /// Before every scan, in every mode: the strike is counted on disk before the sensor is
    /// armed, so nothing that kills the helper between a scan and its bookkeeping (the user's
    /// own SIGKILL of the setuid helper, the module's SIGKILL after Enter on a slow disk) saves
    /// a wrong finger. False, and locked, when the strikes already reached `threshold` (a run
    /// killed after its charge still counts).
    public mutating func charge(threshold: Int, now: Int) -> Bool {
        guard strikes < threshold else {
            lockIfDue(threshold: threshold, now: now)
            return false
        }
        strikes += 1
        return true
    }

    /// The charged scan did not match: its strike is already counted; lock at `threshold`.
    public mutating func chargedNoMatch(threshold: Int, now: Int) {
        lockIfDue(threshold: threshold, now: now)
    }

    /// Sets `locked_at` to `now` when the strikes reached `threshold` and it is not set yet
    /// (also the repair of a lockout whose `locked_at` write was lost: `unlock_time` then runs
    /// from the moment the helper noticed, never from earlier). A set `locked_at` never moves.
    public mutating func lockIfDue(threshold: Int, now: Int) {
        if reachedThreshold(threshold) && lockedAt == nil { lockedAt = now }
    }

    /// The charged scan ended without a verdict (a retry hint, the timeout, a sensor error).
    public mutating func refund() {
        if strikes > 0 { strikes -= 1 }
    }

    /// A fingerprint match: the strikes start over (a lockout is not cleared by a finger: a
    /// locked user never gets to scan).
    public mutating func matched() { strikes = 0 }

    /// The password authenticated the user in this PAM transaction: all clear, and the trust
    /// rules start over from now.
    public mutating func passwordSucceeded(now: Int, bootID: String, printsHash: String) {
        strikes = 0
        lockedAt = nil
        passwordAt = now
        passwordBootID = bootID
        self.printsHash = printsHash
    }

    /// `touchauth unlock`: clears strikes and lockout; the trust rules still stand.
    public mutating func unlock() {
        strikes = 0
        lockedAt = nil
    }

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
