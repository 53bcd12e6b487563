import Testing
@testable import TouchAuthCore

/// The setuid helper's strikes (Privilege.swift): charged before the sensor is armed, so a user
/// who SIGKILLs the helper mid-scan cannot try fingers for free.
@Suite struct ChargedStrikeTests {
    @Test func aKilledScanKeepsItsStrikeAndTheFifthKilledScanLocks() {
        var state = UserState()
        for n in 1...5 {
            let allowed = state.charge(threshold: 5, now: n)  // killed right after: no settle, no refund
            #expect(allowed)
            #expect(state.strikes == n && !state.isLocked)
        }
        let allowed = state.charge(threshold: 5, now: 99)
        #expect(!allowed)
        #expect(state.isLocked && state.lockedAt == 99 && state.strikes == 5)
    }

    @Test func chargedNoMatchesCountLikeStrikes() {
        var charged = UserState()
        var plain = UserState()
        for n in 1...5 {
            _ = charged.charge(threshold: 5, now: n)
            charged.chargedNoMatch(threshold: 5, now: n)
            plain.strike(threshold: 5, now: n)
            #expect(charged == plain)
        }
    }

    @Test func theFifthScanMayStillMatch() {
        var state = UserState(strikes: 4)
        let allowed = state.charge(threshold: 5, now: 1)
        #expect(allowed)
        #expect(!state.isLocked)
        state.matched()
        #expect(state.strikes == 0 && !state.isLocked)
    }

    @Test(arguments: [0, 1, 3])
    func aScanWithoutVerdictIsRefunded(strikes: Int) {
        var state = UserState(strikes: strikes)
        let allowed = state.charge(threshold: 5, now: 1)
        #expect(allowed)
        state.refund()
        #expect(state.strikes == strikes)
    }
}
