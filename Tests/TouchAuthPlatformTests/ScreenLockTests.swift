// SPDX-License-Identifier: Apache-2.0
import CFprint
import Testing
@testable import Fingerprint
@testable import TouchAuthPlatform

/// What logind says of a session (Logind.lockedHint: a `Properties.Get` reply of LockedHint):
/// only a boolean is an answer; anything else is no answer, which refuses nothing.
@Suite struct ScreenLockTests {
    private func hint(_ text: String) -> Bool? {
        let variant = "(v)".withCString { g_variant_parse(g_variant_type_checked_($0), text, nil, nil, nil)! }
        defer { g_variant_unref(variant) }
        return Logind.lockedHint(variant)
    }

    @Test func onlyABooleanIsAnAnswer() {
        #expect(hint("(<true>,)") == true)
        #expect(hint("(<false>,)") == false)
        #expect(hint("(<'yes'>,)") == nil)
        #expect(hint("(<1>,)") == nil)
    }

    @Test func noBusIsNotRunningAndSaysSo() {
        #expect(Logind.lockedHint(session: "2", address: "unix:path=/nonexistent/bus", milliseconds: 200) == .notRunning)
        #expect(ScreenLock.describe(.locked(true)) == "locked")
        #expect(ScreenLock.describe(.noAnswer("x")) == "no answer (x)")
    }
}
