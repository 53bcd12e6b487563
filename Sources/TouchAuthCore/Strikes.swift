// SPDX-License-Identifier: Apache-2.0
/// The strike rules (docs/POLICY.md#lockout), pure: a strike is charged before every scan, and the scan's
/// verdict settles it (a match starts over, a wrong finger keeps it and locks at the threshold, no
/// verdict refunds it); only a match or the password clears. StrikeStore (TouchAuthPlatform) makes
/// each change durable; ScanLoop says when each comes.

/// What a charged scan came to, for its strike.
public enum StrikeSettlement: Equatable, Sendable {
    /// A match: the strikes start over (`UserState.matched`).
    case matched
    /// A wrong finger keeps its strike and locks at the threshold (`UserState.chargedNoMatch`).
    case noMatch
    /// No verdict: the strike comes back (`UserState.refund`).
    case refund

    /// Only the wrong finger's write must survive a crash of the machine; the others give
    /// back, and a crash that undid them leaves one strike too many (the safe side).
    public var isDurable: Bool { self == .noMatch }
}

extension ScanLoop.Verdict {
    /// How a prompt settles the strike it charged for this scan.
    public var settlement: StrikeSettlement {
        switch self {
        case .match: .matched
        case .noMatch: .noMatch
        case .retry, .timedOut, .failed: .refund
        }
    }
}

extension UserState {
    /// At or over `threshold` strikes: locked, whether or not `locked_at` reached the disk (the
    /// helper can be killed while writing the strike that locks; the threshold can be lowered).
    public func reachedThreshold(_ threshold: Int) -> Bool { strikes >= threshold }

    /// Before every scan, in every mode, on disk before the sensor is armed: nothing that kills
    /// the helper between a scan and its settlement saves a wrong finger. False, and locked, when
    /// the strikes already reached `threshold` (a run killed after its charge still counts).
    public mutating func charge(threshold: Int, now: Int) -> Bool {
        guard strikes < threshold else {
            lockIfDue(threshold: threshold, now: now)
            return false
        }
        strikes += 1
        return true
    }

    /// Settles the strike charged for a scan.
    public mutating func settle(_ settlement: StrikeSettlement, threshold: Int, now: Int) {
        switch settlement {
        case .matched: matched()
        case .noMatch: chargedNoMatch(threshold: threshold, now: now)
        case .refund: refund()
        }
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

    /// `touchauth unlock`, or a lockout whose `unlock_time` is over: clears strikes and lockout;
    /// the trust rules still stand.
    public mutating func unlock() {
        strikes = 0
        lockedAt = nil
    }
}
