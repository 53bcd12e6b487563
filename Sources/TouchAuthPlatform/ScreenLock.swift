// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore

/// Whether the session a request names is locked (docs/POLICY.md#a-locked-screen): logind's
/// `LockedHint`, asked on the system bus's fixed path within the bound fprintd's question has.
/// Only a present `true` refuses; no bus, no logind, no answer in time: nothing known, the prompt
/// goes on as it did before the rule.
package enum ScreenLock {
    /// At most this long a prompt waits for the system bus and logind, in all.
    package static let milliseconds = Readers.fprintdMilliseconds

    /// logind's answer for `session`, or `.notRunning` without the bus's socket (a few `access`
    /// calls: nothing more is done). No answer in time is logged.
    package static func ask(session: String) -> Logind.Answer {
        guard access(Fprintd.systemBusPath, F_OK) == 0 else { return .notRunning }
        let answer = Logind.lockedHint(session: session, milliseconds: milliseconds)
        if case .noAnswer(let why) = answer { Syslog.log(LOG_NOTICE, "logind did not answer: \(why)") }
        return answer
    }

    package static func describe(_ answer: Logind.Answer) -> String {
        switch answer {
        case .notRunning: "not running"
        case .noAnswer(let why): "no answer (\(why))"
        case .locked(let locked): locked ? "locked" : "not locked"
        }
    }
}
