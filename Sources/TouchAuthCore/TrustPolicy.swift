// SPDX-License-Identifier: Apache-2.0
internal import CConfig
/// Whether this attempt may use the fingerprint at all, before the sensor is opened: the
/// lockout, then Apple's trust rules (docs/POLICY.md#lockout, docs/POLICY.md#presence). Pure: the clock, the boot id, the
/// prints and the account's password are inputs.
public struct TrustPolicy: Sendable {
    public var lockoutThreshold: Int
    public var unlockTime: Int
    public var passwordAfterBoot: Bool
    public var passwordMaxAgeHours: Int
    public var passwordAfterEnrollChange: Bool
    public var requirePasswordSet: Bool

    public init(_ config: Config) {
        lockoutThreshold = config.lockoutThreshold
        unlockTime = config.unlockTime
        passwordAfterBoot = config.passwordAfterBoot
        passwordMaxAgeHours = config.passwordMaxAge
        passwordAfterEnrollChange = config.passwordAfterEnrollChange
        requirePasswordSet = config.requirePasswordSet
    }

    /// What the system looks like now.
    public struct Facts: Sendable {
        public var now: Int
        public var bootID: String
        public var printsHash: String
        public var passwordUsable: Bool

        public init(now: Int, bootID: String, printsHash: String, passwordUsable: Bool) {
            self.now = now
            self.bootID = bootID
            self.printsHash = printsHash
            self.passwordUsable = passwordUsable
        }
    }

    public enum Reason: Equatable, Sendable {
        case lockedOut
        case passwordNotSet
        case afterBoot
        case maxAge(hours: Int)
        case enrollChanged
    }

    public enum Decision: Equatable, Sendable {
        /// Go ahead and scan. `expiredLockout` is true when `unlock_time` has just ended a
        /// lockout, which the caller writes back.
        case scan(expiredLockout: Bool)
        case refuse(Outcome, Reason)
    }

    /// Locked now: `locked_at` set and `unlock_time` not over yet, or the strikes at or over the
    /// threshold without `locked_at`. The latter means its write was lost (the helper killed
    /// while writing the strike that locked) or the threshold was lowered: locked, whatever
    /// `unlock_time` says, since with no start there is nothing to count it from. The helper then
    /// writes `locked_at` = now (`UserState.lockIfDue`), so `unlock_time` runs from the moment the
    /// lockout was noticed: later than the last strike, never earlier. (`status` and `doctor`
    /// ask this too, so they say what the next prompt does.)
    public func isLockedOut(_ state: UserState, now: Int) -> Bool {
        guard let lockedAt = state.lockedAt else { return state.reachedThreshold(lockoutThreshold) }
        return !ta_lockout_over(Int64(unlockTime), Int64(lockedAt), Int64(now))
    }

    public func decide(_ state: UserState, _ facts: Facts) -> Decision {
        if isLockedOut(state, now: facts.now) { return .refuse(.biometryLockout, .lockedOut) }
        let expired = state.lockedAt != nil
        if requirePasswordSet && !facts.passwordUsable { return .refuse(.passwordNotSet, .passwordNotSet) }
        if passwordAfterBoot && state.passwordBootID != facts.bootID {
            return .refuse(.passwordRequired, .afterBoot)
        }
        if passwordMaxAgeHours > 0 {
            guard let at = state.passwordAt, facts.now - at <= passwordMaxAgeHours * 3600, at <= facts.now + 300 else {
                return .refuse(.passwordRequired, .maxAge(hours: passwordMaxAgeHours))
            }
        }
        if passwordAfterEnrollChange && state.printsHash != facts.printsHash {
            return .refuse(.passwordRequired, .enrollChanged)
        }
        return .scan(expiredLockout: expired)
    }
}
