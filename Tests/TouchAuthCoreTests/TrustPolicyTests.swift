// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

@Suite struct TrustPolicyTests {
    static let hour = 3600
    static let now = 1_800_000_000
    static let facts = TrustPolicy.Facts(now: now, bootID: "boot-2", printsHash: "prints-2", passwordUsable: true)
    /// A user who typed the password an hour ago on this boot with these prints.
    static let trusted = UserState(strikes: 0, lockedAt: nil, passwordAt: now - hour, passwordBootID: "boot-2", printsHash: "prints-2")

    func policy(_ edit: (inout Config) -> Void = { _ in }) -> TrustPolicy {
        var config = Config()
        edit(&config)
        return TrustPolicy(config)
    }

    @Test func aTrustedUserScans() {
        #expect(policy().decide(Self.trusted, Self.facts) == .scan(expiredLockout: false))
    }

    @Test func aLockedUserDoesNotScan() {
        var state = Self.trusted
        state.lockedAt = Self.now - 10 * Self.hour
        #expect(policy().decide(state, Self.facts) == .refuse(.biometryLockout, .lockedOut))
    }

    @Test(arguments: [
        (3599, TrustPolicy.Decision.refuse(.biometryLockout, .lockedOut)),
        (3600, .scan(expiredLockout: true)),
        (9999, .scan(expiredLockout: true)),
    ])
    func unlockTimeEndsALockout(lockedFor: Int, expected: TrustPolicy.Decision) {
        var state = Self.trusted
        state.lockedAt = Self.now - lockedFor
        #expect(policy { $0.unlockTime = 3600 }.decide(state, Self.facts) == expected)
    }

    /// A state whose strikes reached the threshold but whose `locked_at` write was lost (the
    /// helper killed mid-write): locked before the sensor opens, `unlock_time` or not.
    @Test(arguments: [
        // strikes, threshold, unlock_time, locked_at (seconds ago), expected
        (4, 5, 0, nil, TrustPolicy.Decision.scan(expiredLockout: false)),
        (5, 5, 0, nil, .refuse(.biometryLockout, .lockedOut)),
        (6, 5, 0, nil, .refuse(.biometryLockout, .lockedOut)),
        (999, 5, 0, nil, .refuse(.biometryLockout, .lockedOut)),
        (3, 3, 0, nil, .refuse(.biometryLockout, .lockedOut)),  // the threshold lowered under it
        (4, 10, 0, nil, .scan(expiredLockout: false)),  // ...or raised
        (1, 1, 0, nil, .refuse(.biometryLockout, .lockedOut)),
        (5, 5, 3600, nil, .refuse(.biometryLockout, .lockedOut)),  // no start: unlock_time cannot end it
        (5, 5, 1, nil, .refuse(.biometryLockout, .lockedOut)),
        (5, 5, 3600, 3599, .refuse(.biometryLockout, .lockedOut)),  // with a start it counts as before
        (5, 5, 3600, 3600, .scan(expiredLockout: true)),
        (0, 5, 3600, 9999, .scan(expiredLockout: true)),
    ] as [(Int, Int, Int, Int?, TrustPolicy.Decision)])
    func strikesAtTheThresholdLockWithoutLockedAt(
        strikes: Int, threshold: Int, unlockTime: Int, lockedFor: Int?, expected: TrustPolicy.Decision
    ) {
        var state = Self.trusted
        state.strikes = strikes
        state.lockedAt = lockedFor.map { Self.now - $0 }
        let p = policy {
            $0.lockoutThreshold = threshold
            $0.unlockTime = unlockTime
        }
        #expect(p.decide(state, Self.facts) == expected)
    }

    @Test func theLockoutComesBeforeTheTrustRules() {
        let state = UserState(strikes: 5, lockedAt: Self.now)
        #expect(policy().decide(state, Self.facts) == .refuse(.biometryLockout, .lockedOut))
    }

    @Test func anAccountWithoutAPasswordCannotUseTheFingerprint() {
        var facts = Self.facts
        facts.passwordUsable = false
        #expect(policy().decide(Self.trusted, facts) == .refuse(.passwordNotSet, .passwordNotSet))
        #expect(policy { $0.requirePasswordSet = false }.decide(Self.trusted, facts) == .scan(expiredLockout: false))
    }

    @Test(arguments: [nil, "boot-1"])
    func thePasswordComesFirstAfterABoot(storedBoot: String?) {
        var state = Self.trusted
        state.passwordBootID = storedBoot
        #expect(policy().decide(state, Self.facts) == .refuse(.passwordRequired, .afterBoot))
        #expect(policy { $0.passwordAfterBoot = false }.decide(state, Self.facts) == .scan(expiredLockout: false))
    }

    @Test(arguments: [
        (47 * hour, true), (48 * hour, true), (48 * hour + 1, false), (1000 * hour, false),
        (-300, true),  // a clock a little behind is fine
        (-301, false),  // a password "from the future" is not trusted
    ])
    func thePasswordIsRequiredAfter48HoursWithoutIt(age: Int, scans: Bool) {
        var state = Self.trusted
        state.passwordAt = Self.now - age
        let expected: TrustPolicy.Decision = scans ? .scan(expiredLockout: false) : .refuse(.passwordRequired, .maxAge(hours: 48))
        #expect(policy().decide(state, Self.facts) == expected)
        #expect(policy { $0.passwordMaxAge = 0 }.decide(state, Self.facts) == .scan(expiredLockout: false))
    }

    @Test func neverAPasswordMeansThePasswordFirst() {
        let state = UserState(passwordBootID: "boot-2", printsHash: "prints-2")
        #expect(policy().decide(state, Self.facts) == .refuse(.passwordRequired, .maxAge(hours: 48)))
    }

    @Test func aNewFingerMeansThePasswordFirst() {
        var state = Self.trusted
        state.printsHash = "prints-1"
        #expect(policy().decide(state, Self.facts) == .refuse(.passwordRequired, .enrollChanged))
        #expect(policy { $0.passwordAfterEnrollChange = false }.decide(state, Self.facts) == .scan(expiredLockout: false))
    }

    @Test func everyRuleOffScansEvenAFreshUser() {
        let p = policy {
            $0.passwordAfterBoot = false
            $0.passwordMaxAge = 0
            $0.passwordAfterEnrollChange = false
        }
        #expect(p.decide(UserState(), Self.facts) == .scan(expiredLockout: false))
    }

    @Test func eachReasonHasItsOwnLine() {
        let reasons: [TrustPolicy.Reason] = [.lockedOut, .passwordNotSet, .afterBoot, .maxAge(hours: 48), .enrollChanged]
        let texts = Set(reasons.map { Message.refused($0).text })
        #expect(texts.count == reasons.count)
        #expect(Message.refused(.lockedOut).text == "Too many failed attempts. Enter your password to use your fingerprint again.")
        #expect(Message.refused(.maxAge(hours: 12)).text.contains("12 hours"))
    }
}
