// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

/// The strikes of every mode (PamVerify): charged before the sensor is armed, so a user who
/// SIGKILLs the setuid helper mid-scan, or presses Enter while a slow disk holds the strike's
/// write, cannot try fingers for free.
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

    @Test func chargedNoMatchesCountOneStrikeEachAndLockAtTheThreshold() {
        var charged = UserState()
        for n in 1...5 {
            _ = charged.charge(threshold: 5, now: n)
            charged.chargedNoMatch(threshold: 5, now: n)
            // What the old uncharged `strike` gave: n strikes, locked at the fifth, from its time.
            #expect(charged == UserState(strikes: n, lockedAt: n >= 5 ? 5 : nil))
        }
    }

    /// The fifth charge reached the disk but the no-match's `locked_at` did not (the helper was
    /// killed mid-write): the next run's charge refuses and writes the lockout, from its time.
    @Test func aLostLockedAtIsWrittenByTheNextCharge() {
        var state = UserState(strikes: 5)
        #expect(state.reachedThreshold(5) && !state.isLocked)
        let allowed = state.charge(threshold: 5, now: 42)
        #expect(!allowed)
        #expect(state == UserState(strikes: 5, lockedAt: 42))
        state.lockIfDue(threshold: 5, now: 99)  // a set locked_at never moves
        #expect(state.lockedAt == 42)
    }

    @Test(arguments: [(4, 5, false), (5, 5, true), (7, 5, true), (4, 3, true), (0, 1, false)])
    func lockIfDueLocksAtOrOverTheThreshold(strikes: Int, threshold: Int, locks: Bool) {
        var state = UserState(strikes: strikes)
        state.lockIfDue(threshold: threshold, now: 7)
        #expect(state == UserState(strikes: strikes, lockedAt: locks ? 7 : nil))
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
