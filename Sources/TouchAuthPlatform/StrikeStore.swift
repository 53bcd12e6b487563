// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore

/// One user's strikes made durable (the rules: TouchAuthCore/Strikes.swift). Each change is
/// applied to a fresh read under the state file's lock and written atomically (StateStore). The
/// charge and a wrong finger's settlement are fsync'd before the caller goes on: the strike is on
/// disk before the sensor is armed, so nothing that kills the helper between a scan and its
/// settlement (the user's own SIGKILL of the setuid helper, the module's SIGKILL on a slow disk)
/// saves a wrong finger.
package struct StrikeStore {
    let states: StateStore
    let uid: uid_t
    let threshold: Int

    package init(_ states: StateStore, uid: uid_t, threshold: Int) {
        self.states = states
        self.uid = uid
        self.threshold = threshold
    }

    /// Charges the coming scan's strike, durably: `.charged`; `.chargeRefused` when the strikes
    /// had reached the threshold (now locked); `.chargeFailed` when it could not be written.
    package func charge(_ state: inout UserState) -> ScanLoop.Event {
        do {
            var allowed = true
            state = try states.update(uid) { allowed = $0.charge(threshold: threshold, now: SystemFacts.now()) }
            return allowed ? .charged : .chargeRefused(strikes: state.strikes)
        } catch {
            return .chargeFailed("\(error)")
        }
    }

    /// Settles the charged scan's strike, fsync'd only where a crash must not undo it
    /// (`StrikeSettlement.isDurable`). `promptEnded` is asked once the write is done.
    package func settle(_ settlement: StrikeSettlement, _ state: inout UserState, promptEnded: @autoclosure () -> Bool) -> ScanLoop.Event {
        do {
            state = try states.update(uid, durable: settlement.isDurable) {
                $0.settle(settlement, threshold: threshold, now: SystemFacts.now())
            }
        } catch {
            return .settleFailed("\(error)")
        }
        return .settled(strikes: state.strikes, locked: state.isLocked, promptEnded: promptEnded())
    }

    /// Writes the `locked_at` of strikes that reached the threshold without it (`lockIfDue`).
    package func recordLockout() throws(StateStore.Problem) -> UserState {
        try states.update(uid) { $0.lockIfDue(threshold: threshold, now: SystemFacts.now()) }
    }

    /// A locked user was refused: the module's marker of the lockout, rewritten from the state
    /// (StateStore.lockoutMarker), so the next prompt is refused without the helper.
    package func refreshLockoutMarker() { states.refreshLockoutMarker(uid) }

    /// Ends a lockout whose `unlock_time` is over.
    package func endLockout() throws(StateStore.Problem) -> UserState {
        try states.update(uid) { $0.unlock() }
    }
}
