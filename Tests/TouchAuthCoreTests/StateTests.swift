// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

@Suite struct StateTests {
    @Test func fiveStrikesInARowLock() {
        var state = UserState()
        for n in 1...4 {
            state.wrongFinger(threshold: 5, now: 100 + n)
            #expect(!state.isLocked)
        }
        state.wrongFinger(threshold: 5, now: 200)
        #expect(state.isLocked && state.lockedAt == 200 && state.strikes == 5)
        state.wrongFinger(threshold: 5, now: 300)  // a later attempt does not move the lockout's start
        #expect(state.lockedAt == 200)
    }

    @Test func aMatchStartsTheStrikesOver() {
        var state = UserState(strikes: 4)
        state.matched()
        #expect(state.strikes == 0)
        state.wrongFinger(threshold: 5, now: 1)
        #expect(!state.isLocked)
    }

    @Test func thePasswordClearsEverythingAndRestartsTheTrustClocks() {
        var state = UserState(strikes: 7, lockedAt: 10, passwordAt: 1, passwordBootID: "old", printsHash: "h0")
        state.passwordSucceeded(now: 500, bootID: "boot", printsHash: "h1")
        #expect(state == UserState(strikes: 0, lockedAt: nil, passwordAt: 500, passwordBootID: "boot", printsHash: "h1"))
    }

    @Test func unlockClearsTheLockoutButNotTheTrustRules() {
        var state = UserState(strikes: 5, lockedAt: 10, passwordAt: 1, passwordBootID: "b", printsHash: "h")
        state.unlock()
        #expect(state == UserState(strikes: 0, lockedAt: nil, passwordAt: 1, passwordBootID: "b", printsHash: "h"))
    }

    @Test(arguments: [
        UserState(),
        UserState(strikes: 3),
        UserState(strikes: 5, lockedAt: 1_700_000_000, passwordAt: 1_699_000_000,
                  passwordBootID: "0f1e2d3c-aaaa-bbbb-cccc-001122334455", printsHash: "ab12"),
    ])
    func theFileFormatRoundTrips(state: UserState) throws {
        #expect(try UserState.decode(Array(state.encoded.utf8)) == state)
    }

    @Test func theFileFormatIsVersionedAndExact() {
        #expect(UserState(strikes: 2, lockedAt: nil, passwordAt: 9).encoded == """
            touchauth-state 1
            strikes 2
            locked_at -
            password_at 9
            password_boot_id -
            prints_hash -

            """)
    }

    static let good = UserState(strikes: 2, lockedAt: 5, passwordAt: 9, passwordBootID: "b-1", printsHash: "h").encoded

    @Test(arguments: [
        "",
        "touchauth-state 1\n",
        "touchauth-state 2\nstrikes 2\nlocked_at 5\npassword_at 9\npassword_boot_id b-1\nprints_hash h\n",
        String(good.dropLast()),  // truncated: no final newline
        String(good.dropLast(10)),  // truncated mid-line
        good.replacingOccurrences("strikes 2", "strikes -1"),
        good.replacingOccurrences("strikes 2", "strikes -"),
        good.replacingOccurrences("strikes 2", "strikes 99999999999999999999"),
        good.replacingOccurrences("locked_at 5", "locked_at five"),
        good.replacingOccurrences("locked_at 5", "locked_at"),
        good.replacingOccurrences("password_boot_id b-1", "password_boot_id b/1"),
        good.replacingOccurrences("prints_hash h", "prints_hash h h"),
        good.replacingOccurrences("strikes", "strokes"),
        good + "extra 1\n",
        "\u{0}" + good,
    ])
    func corruptFilesAreRejected(text: String) {
        #expect(throws: UserState.DecodeError.self) { try UserState.decode(Array(text.utf8)) }
    }

    @Test func invalidUTF8IsCorrupt() {
        #expect(throws: UserState.DecodeError.self) { try UserState.decode([0xff, 0xfe]) }
    }
}

extension UserState {
    /// What the helper does for a wrong finger (PamVerify): the strike charged before the scan,
    /// then settled as a no-match. (Was `UserState.strike`, gone with the uncharged root path.)
    mutating func wrongFinger(threshold: Int, now: Int) {
        if charge(threshold: threshold, now: now) { chargedNoMatch(threshold: threshold, now: now) }
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
