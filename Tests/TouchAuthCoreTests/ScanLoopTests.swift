// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

/// The scan loop of `pam-verify` (a prompt: strikes, tries, lockout) and of `verify`/`enable`
/// (a check: no strikes), step by step: what is charged, scanned, settled, shown and logged,
/// and how each sequence ends (docs/POLICY.md#outcomes, docs/POLICY.md#lockout).
@Suite struct ScanLoopTests {
    typealias Step = ScanLoop.Step

    static let one: [Finger] = [.rightIndex]
    static let three: [Finger] = [.leftIndex, .rightIndex, .rightThumb]
    static let lockedOut: [ScanLoop.Line] = [.show(.refused(.lockedOut))]

    func prompt(_ fingers: [Finger] = one, maxTries: Int = 3, canIdentify: Bool = false) -> ScanLoop {
        ScanLoop(.prompt(maxTries: maxTries), fingers: fingers, canIdentify: canIdentify)
    }

    /// After `settled`: the loop has charged, scanned `verdict` and settled it without trouble.
    func scanned(_ loop: inout ScanLoop, _ verdict: ScanLoop.Verdict, strikes: Int = 1, locked: Bool = false,
                 promptEnded: Bool = false) -> Step {
        #expect(loop.handle(.charged).action == .scan(loop.target))
        #expect(loop.handle(.scanned(verdict)) == .perform([], .settle(verdict.settlement)))
        return loop.handle(.settled(strikes: strikes, locked: locked, promptEnded: promptEnded))
    }

    // MARK: a prompt (pam-verify)

    @Test func aMatchOnTheFirstTryChargesScansAndResetsTheStrikes() {
        var loop = prompt()
        #expect(loop.prompt == .placeFinger)
        #expect(loop.start() == .perform([], .charge))
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
        #expect(loop.handle(.scanned(.match(0))) == .perform([], .settle(.matched)))
        #expect(loop.handle(.settled(strikes: 0, locked: false, promptEnded: false)) == .finish([], .matched(0)))
        #expect(ScanLoop.Ending.matched(0).outcome == .success)
    }

    @Test func threeWrongFingersSayTryAgainTwiceThenEndTheAttempt() {
        var loop = prompt()
        #expect(loop.start() == .perform([], .charge))
        #expect(scanned(&loop, .noMatch, strikes: 1) == .perform([.show(.notRecognized)], .charge))
        #expect(scanned(&loop, .noMatch, strikes: 2) == .perform([.show(.notRecognized)], .charge))
        #expect(scanned(&loop, .noMatch, strikes: 3) == .finish([.show(.tooManyTries)], .notRecognized))
        #expect(ScanLoop.Ending.notRecognized.outcome == .authenticationFailed)
    }

    @Test(arguments: 1...6)
    func maxTriesWrongFingersEndThePrompt(maxTries: Int) {
        var loop = prompt(maxTries: maxTries)
        _ = loop.start()
        for n in 1..<maxTries {
            #expect(scanned(&loop, .noMatch, strikes: n) == .perform([.show(.notRecognized)], .charge))
        }
        #expect(scanned(&loop, .noMatch, strikes: maxTries) == .finish([.show(.tooManyTries)], .notRecognized))
    }

    @Test(arguments: RetryHint.allCases)
    func aRetryHintIsRefundedShownAndChargedAgainWithoutCostingATry(hint: RetryHint) {
        var loop = prompt(maxTries: 1)
        _ = loop.start()
        for _ in 0..<10 {
            #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
            #expect(loop.handle(.scanned(.retry(hint))) == .perform([], .settle(.refund)))
            #expect(loop.handle(.settled(strikes: 0, locked: false, promptEnded: false)) == .perform([.show(.retry(hint))], .charge))
        }
        #expect(scanned(&loop, .match(0)) == .finish([], .matched(0)))
    }

    @Test func aMatchAfterWrongFingersStillSucceeds() {
        var loop = prompt()
        _ = loop.start()
        _ = scanned(&loop, .noMatch, strikes: 1)
        _ = scanned(&loop, .noMatch, strikes: 2)
        #expect(scanned(&loop, .match(0), strikes: 0) == .finish([], .matched(0)))
    }

    @Test func aTimeoutIsRefundedAndSaysSo() {
        var loop = prompt()
        _ = loop.start()
        #expect(scanned(&loop, .timedOut, strikes: 0) == .finish([.show(.timedOut)], .timedOut))
        #expect(ScanLoop.Ending.timedOut.outcome == .systemCancel)
    }

    @Test func aSensorFailureIsRefundedAndSaysSo() {
        var loop = prompt()
        _ = loop.start()
        #expect(scanned(&loop, .failed, strikes: 0) == .finish([.show(.sensorFailed)], .sensorFailed))
        #expect(ScanLoop.Ending.sensorFailed.outcome == .systemCancel)
    }

    @Test(arguments: [ScanLoop.Verdict.match(0), .noMatch, .retry(.general), .timedOut, .failed])
    func onlyAWrongFingersSettlementMustSurviveACrash(verdict: ScanLoop.Verdict) {
        #expect(verdict.settlement.isDurable == (verdict == .noMatch))
    }

    // MARK: the prompt ended (Enter, typing, Ctrl-C: the module's SIGTERM) at each point

    @Test func aPromptEndedBeforeTheFirstChargeIsNeverChargedOrScanned() {
        var loop = prompt()
        #expect(loop.start() == .perform([], .charge))
        #expect(loop.handle(.promptEnded) == .finish([], .promptEnded))
        #expect(ScanLoop.Ending.promptEnded.outcome == .systemCancel)
    }

    @Test func aPromptEndedAfterAWrongFingerChargesNoFurtherScan() {
        var loop = prompt()
        _ = loop.start()
        #expect(scanned(&loop, .noMatch) == .perform([.show(.notRecognized)], .charge))
        #expect(loop.handle(.promptEnded) == .finish([], .promptEnded))
    }

    /// SIGTERM cancels the scan in progress: no verdict, the strike comes back, nothing is said.
    @Test func aScanCancelledByTheEndedPromptIsRefundedSilently() {
        var loop = prompt()
        _ = loop.start()
        #expect(scanned(&loop, .timedOut, strikes: 0, promptEnded: true) == .finish([], .promptEnded))
    }

    /// A verdict reached before the cancel stands: a wrong finger then Enter keeps its strike.
    @Test func aWrongFingerBeforeTheEndedPromptKeepsItsStrike() {
        var loop = prompt()
        _ = loop.start()
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
        #expect(loop.handle(.scanned(.noMatch)) == .perform([], .settle(.noMatch)))
        #expect(loop.handle(.settled(strikes: 1, locked: false, promptEnded: true)) == .perform([.show(.notRecognized)], .charge))
        #expect(loop.handle(.promptEnded) == .finish([], .promptEnded))
    }

    @Test(arguments: [ScanLoop.Verdict.retry(.tooShort), .failed])
    func anEndedPromptAfterAScanWithoutVerdictEndsAtTheNextCharge(verdict: ScanLoop.Verdict) {
        var loop = prompt()
        _ = loop.start()
        let step = scanned(&loop, verdict, strikes: 0, promptEnded: true)
        if verdict == .failed {
            #expect(step == .finish([.show(.sensorFailed)], .sensorFailed))
        } else {
            #expect(step == .perform([.show(.retry(.tooShort))], .charge))
            #expect(loop.handle(.promptEnded) == .finish([], .promptEnded))
        }
    }

    // MARK: the lockout, and a state store that fails

    @Test func theWrongFingerThatReachesTheThresholdLocksMidPrompt() {
        var loop = prompt()
        _ = loop.start()
        #expect(scanned(&loop, .noMatch, strikes: 5, locked: true)
            == .finish([.log(.locked(afterStrikes: 5))] + Self.lockedOut, .lockedOut))
        #expect(ScanLoop.Ending.lockedOut.outcome == .biometryLockout)
    }

    @Test func aChargeRefusedAtTheThresholdLocksWithoutAScan() {
        var loop = prompt()
        _ = loop.start()
        #expect(loop.handle(.chargeRefused(strikes: 5))
            == .finish([.log(.lockedOut(.failuresInARow(5)))] + Self.lockedOut, .lockedOut))
    }

    @Test func aChargeRefusedAfterWrongFingersLocksToo() {
        var loop = prompt(maxTries: 5)
        _ = loop.start()
        _ = scanned(&loop, .noMatch, strikes: 4)
        #expect(loop.handle(.chargeRefused(strikes: 5))
            == .finish([.log(.lockedOut(.failuresInARow(5)))] + Self.lockedOut, .lockedOut))
    }

    @Test func aChargeThatCannotBeWrittenLocks() {
        var loop = prompt()
        _ = loop.start()
        #expect(loop.handle(.chargeFailed("disk full"))
            == .finish([.log(.lockedOut(.strikeNotRecorded("disk full")))] + Self.lockedOut, .lockedOut))
    }

    @Test func aWrongFingerThatCannotBeRecordedLocks() {
        var loop = prompt()
        _ = loop.start()
        _ = loop.handle(.charged)
        _ = loop.handle(.scanned(.noMatch))
        #expect(loop.handle(.settleFailed("disk full"))
            == .finish([.log(.lockedOut(.strikeNotRecorded("disk full")))] + Self.lockedOut, .lockedOut))
    }

    @Test(arguments: [ScanLoop.Verdict.retry(.removeFinger), .timedOut, .failed])
    func aRefundThatCannotBeWrittenLocks(verdict: ScanLoop.Verdict) {
        var loop = prompt()
        _ = loop.start()
        _ = loop.handle(.charged)
        #expect(loop.handle(.scanned(verdict)) == .perform([], .settle(.refund)))
        #expect(loop.handle(.settleFailed("EIO"))
            == .finish([.log(.lockedOut(.refundNotRecorded("EIO")))] + Self.lockedOut, .lockedOut))
    }

    /// The finger is right; the charged strike stays until the next match or password.
    @Test func aMatchWhoseResetCannotBeWrittenStillSucceeds() {
        var loop = prompt(Self.three, canIdentify: true)
        _ = loop.start()
        _ = loop.handle(.charged)
        #expect(loop.handle(.scanned(.match(2))) == .perform([], .settle(.matched)))
        #expect(loop.handle(.settleFailed("EIO")) == .finish([.log(.strikesNotReset("EIO"))], .matched(2)))
    }

    // MARK: which print: identify, or the prints in turn

    @Test func aSensorWithoutIdentifyTakesThePrintsInTurnAndNamesEach() {
        var loop = prompt(Self.three, maxTries: 5)
        #expect(loop.prompt == .placeNamedFinger(.leftIndex))
        _ = loop.start()
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
        #expect(loop.handle(.scanned(.noMatch)) == .perform([], .settle(.noMatch)))
        #expect(loop.handle(.settled(strikes: 1, locked: false, promptEnded: false))
            == .perform([.show(.notRecognized), .show(.placeNamedFinger(.rightIndex))], .charge))
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(1))))
        // A retry hint keeps the print expected.
        _ = loop.handle(.scanned(.retry(.centerFinger)))
        #expect(loop.handle(.settled(strikes: 1, locked: false, promptEnded: false)) == .perform([.show(.retry(.centerFinger))], .charge))
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(1))))
        _ = loop.handle(.scanned(.noMatch))
        #expect(loop.handle(.settled(strikes: 2, locked: false, promptEnded: false))
            == .perform([.show(.notRecognized), .show(.placeNamedFinger(.rightThumb))], .charge))
        #expect(scanned(&loop, .noMatch, strikes: 3)
            == .perform([.show(.notRecognized), .show(.placeNamedFinger(.leftIndex))], .charge))
        // After the last print, the first again.
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
        #expect(loop.handle(.scanned(.match(0))) == .perform([], .settle(.matched)))
        #expect(loop.handle(.settled(strikes: 0, locked: false, promptEnded: false)) == .finish([], .matched(0)))
    }

    @Test func theLastTryNamesNoNextFinger() {
        var loop = prompt([.leftIndex, .rightIndex], maxTries: 2)
        _ = loop.start()
        #expect(scanned(&loop, .noMatch) == .perform([.show(.notRecognized), .show(.placeNamedFinger(.rightIndex))], .charge))
        #expect(scanned(&loop, .noMatch, strikes: 2) == .finish([.show(.tooManyTries)], .notRecognized))
    }

    @Test func aSensorThatIdentifiesComparesEveryPrintInOneScan() {
        var loop = prompt(Self.three, canIdentify: true)
        #expect(loop.prompt == .placeFinger)
        _ = loop.start()
        #expect(loop.handle(.charged) == .perform([], .scan(.identify)))
        #expect(loop.handle(.scanned(.noMatch)) == .perform([], .settle(.noMatch)))
        #expect(loop.handle(.settled(strikes: 1, locked: false, promptEnded: false)) == .perform([.show(.notRecognized)], .charge))
        #expect(loop.handle(.charged) == .perform([], .scan(.identify)))
        #expect(loop.handle(.scanned(.match(1))) == .perform([], .settle(.matched)))
        #expect(loop.handle(.settled(strikes: 0, locked: false, promptEnded: false)) == .finish([], .matched(1)))
    }

    @Test(arguments: [false, true])
    func aPromptVerifiesASinglePrintWhateverTheSensor(canIdentify: Bool) {
        var loop = prompt(Self.one, canIdentify: canIdentify)
        #expect(loop.prompt == .placeFinger)
        _ = loop.start()
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
        _ = loop.handle(.scanned(.noMatch))
        #expect(loop.handle(.settled(strikes: 1, locked: false, promptEnded: false)) == .perform([.show(.notRecognized)], .charge))
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
    }

    // MARK: a check (verify, enable): no strikes

    func check(_ fingers: [Finger], canIdentify: Bool = false) -> ScanLoop {
        ScanLoop(.check, fingers: fingers, canIdentify: canIdentify)
    }

    @Test func aCheckScansWithoutChargingAndEndsAtTheMatch() {
        var loop = check(Self.three)
        #expect(loop.prompt == .placeNamedFinger(.leftIndex))
        #expect(loop.start() == .perform([], .scan(.verify(0))))
        #expect(loop.handle(.scanned(.match(0))) == .finish([], .matched(0)))
    }

    @Test func aCheckTriesEachPrintOnceNamingTheNext() {
        var loop = check(Self.three)
        _ = loop.start()
        #expect(loop.handle(.scanned(.noMatch)) == .perform([.show(.placeNamedFinger(.rightIndex))], .scan(.verify(1))))
        #expect(loop.handle(.scanned(.retry(.general))) == .perform([.show(.retry(.general))], .scan(.verify(1))))
        #expect(loop.handle(.scanned(.noMatch)) == .perform([.show(.placeNamedFinger(.rightThumb))], .scan(.verify(2))))
        #expect(loop.handle(.scanned(.noMatch)) == .finish([], .notRecognized))
    }

    @Test func aCheckOfOnePrintEndsAtTheFirstWrongFinger() {
        var loop = check(Self.one)
        #expect(loop.prompt == .placeFinger)
        #expect(loop.start() == .perform([], .scan(.verify(0))))
        #expect(loop.handle(.scanned(.noMatch)) == .finish([], .notRecognized))
    }

    @Test(arguments: [1, 3])
    func aCheckOnASensorThatIdentifiesScansOnce(prints: Int) {
        var loop = check(Array(Self.three.prefix(prints)), canIdentify: true)
        #expect(loop.prompt == .placeFinger)
        #expect(loop.start() == .perform([], .scan(.identify)))
        #expect(loop.handle(.scanned(.retry(.tooShort))) == .perform([.show(.retry(.tooShort))], .scan(.identify)))
        #expect(loop.handle(.scanned(.noMatch)) == .finish([], .notRecognized))
        var again = check(Array(Self.three.prefix(prints)), canIdentify: true)
        _ = again.start()
        #expect(again.handle(.scanned(.match(prints - 1))) == .finish([], .matched(prints - 1)))
    }

    @Test func aCheckEndsSilentlyAtATimeoutOrASensorFailure() {
        var timedOut = check(Self.three)
        _ = timedOut.start()
        #expect(timedOut.handle(.scanned(.timedOut)) == .finish([], .timedOut))
        var failed = check(Self.three)
        _ = failed.start()
        #expect(failed.handle(.scanned(.failed)) == .finish([], .sensorFailed))
    }

    // MARK: a driver out of step never gets a success

    @Test func aMatchReportedBeforeTheChargeIsNoSuccess() {
        var loop = prompt()
        _ = loop.start()
        #expect(loop.handle(.scanned(.match(0))) == .finish([], .sensorFailed))
        #expect(loop.handle(.charged) == .finish([], .sensorFailed))  // and it stays over
    }

    @Test func aMatchOfAPrintTheLoopDoesNotHaveIsNoSuccess() {
        var loop = prompt()
        _ = loop.start()
        _ = loop.handle(.charged)
        #expect(loop.handle(.scanned(.match(1))) == .perform([], .settle(.refund)))
        #expect(loop.handle(.settled(strikes: 0, locked: false, promptEnded: false)) == .finish([.show(.sensorFailed)], .sensorFailed))
        var checking = check(Self.one)
        _ = checking.start()
        #expect(checking.handle(.scanned(.match(-1))) == .finish([], .sensorFailed))
    }

    @Test func aMatchOfAnotherPrintThanTheOneVerifiedIsNoSuccess() {
        var loop = prompt(Self.three)
        _ = loop.start()
        #expect(loop.handle(.charged) == .perform([], .scan(.verify(0))))
        #expect(loop.handle(.scanned(.match(2))) == .perform([], .settle(.refund)))
        var checking = check(Self.three)
        #expect(checking.start() == .perform([], .scan(.verify(0))))
        #expect(checking.handle(.scanned(.match(1))) == .finish([], .sensorFailed))
    }

    @Test func aCheckIsNeverAskedToCharge() {
        var checking = check(Self.one)
        _ = checking.start()
        #expect(checking.handle(.charged) == .finish([], .sensorFailed))
    }

    @Test func aLoopWithoutPrintsEndsAtOnce() {
        var loop = prompt([])
        #expect(loop.start() == .finish([], .sensorFailed))
        var checking = check([])
        #expect(checking.start() == .finish([], .sensorFailed))
    }

    @Test func anEndedLoopStaysEnded() {
        var loop = prompt()
        _ = loop.start()
        #expect(loop.handle(.promptEnded) == .finish([], .promptEnded))
        #expect(loop.start() == .finish([], .promptEnded))
        #expect(loop.handle(.charged) == .finish([], .promptEnded))
    }
}

/// The loop run against a state kept as the store keeps it (UserState's own rules) and a sensor
/// that gives scripted verdicts, killed after every action: no free wrong finger anywhere.
@Suite struct ScanLoopRunTests {
    /// The store and the sensor in memory.
    struct Rig {
        var disk: UserState
        var verdicts: [ScanLoop.Verdict]
        var threshold = 5
        var scans = 0
        /// The wrong fingers since the last match (or before the prompt): what the disk must hold.
        var owed: Int
        var chargedAtEachScan: [Int] = []
        var lines: [ScanLoop.Line] = []

        mutating func perform(_ action: ScanLoop.Action) -> ScanLoop.Event {
            switch action {
            case .charge:
                let allowed = disk.charge(threshold: threshold, now: 1)
                return allowed ? .charged : .chargeRefused(strikes: disk.strikes)
            case .scan:
                chargedAtEachScan.append(disk.strikes)
                let verdict = scans < verdicts.count ? verdicts[scans] : .timedOut
                scans += 1
                if verdict == .noMatch { owed += 1 }
                return .scanned(verdict)
            case .settle(let settlement):
                switch settlement {
                case .matched:
                    disk.matched()
                    owed = 0
                case .noMatch: disk.chargedNoMatch(threshold: threshold, now: 2)
                case .refund: disk.refund()
                }
                return .settled(strikes: disk.strikes, locked: disk.isLocked, promptEnded: false)
            }
        }
    }

    /// Runs a prompt to its end, or kills it (stops performing) after `killAfter` actions.
    static func run(_ rig: inout Rig, maxTries: Int = 3, fingers: [Finger] = [.rightIndex], killAfter: Int = .max) -> ScanLoop.Ending? {
        var loop = ScanLoop(.prompt(maxTries: maxTries), fingers: fingers, canIdentify: false)
        var step = loop.start()
        var performed = 0
        while true {
            switch step {
            case .finish(let lines, let ending):
                rig.lines += lines
                return ending
            case .perform(let lines, let action):
                rig.lines += lines
                guard performed < killAfter else { return nil }
                performed += 1
                step = loop.handle(rig.perform(action))
            }
        }
    }

    static let sequences: [[ScanLoop.Verdict]] = [
        [.match(0)], [.noMatch, .noMatch, .noMatch], [.noMatch, .match(0)], [.retry(.general), .noMatch, .match(0)],
        [.noMatch, .retry(.tooShort), .noMatch, .timedOut], [.failed], [.noMatch, .failed], [.timedOut],
    ]

    @Test(arguments: sequences, [0, 3])
    func killedAtAnyPointTheDiskHoldsEveryWrongFingerAndTheScanInFlight(verdicts: [ScanLoop.Verdict], strikes: Int) {
        for killAfter in 0...12 {
            var rig = Rig(disk: UserState(strikes: strikes), verdicts: verdicts, owed: strikes)
            _ = Self.run(&rig, killAfter: killAfter)
            // Every scan was offered with its strike already on disk.
            for (n, charged) in rig.chargedAtEachScan.enumerated() {
                let earlierWrong = rig.verdicts.prefix(n).filter { $0 == .noMatch }.count
                #expect(charged == strikes + earlierWrong + 1)
            }
            // Whatever was not settled yet stays charged: never fewer strikes than wrong fingers.
            #expect(rig.disk.strikes >= min(rig.owed, rig.threshold))
        }
    }

    @Test func aWholePromptEndsAsTheAttemptRulesSay() {
        var rig = Rig(disk: UserState(strikes: 1), verdicts: [.noMatch, .retry(.general), .match(0)], owed: 1)
        #expect(Self.run(&rig) == .matched(0))
        #expect(rig.disk == UserState())
        #expect(rig.lines == [.show(.notRecognized), .show(.retry(.general))])
        #expect(rig.chargedAtEachScan == [2, 3, 3])
    }

    @Test func theFifthFailureInARowLocksDuringThePrompt() {
        var rig = Rig(disk: UserState(strikes: 3), verdicts: [.noMatch, .noMatch, .noMatch], owed: 3)
        #expect(Self.run(&rig) == .lockedOut)
        #expect(rig.disk == UserState(strikes: 5, lockedAt: 2))
        #expect(rig.scans == 2)
        #expect(rig.lines == [.show(.notRecognized), .log(.locked(afterStrikes: 5)), .show(.refused(.lockedOut))])
    }

    @Test func aPromptAtTheThresholdNeverScans() {
        var rig = Rig(disk: UserState(strikes: 5), verdicts: [.match(0)], owed: 5)
        #expect(Self.run(&rig) == .lockedOut)
        #expect(rig.scans == 0)
        #expect(rig.disk == UserState(strikes: 5, lockedAt: 1))
        #expect(rig.lines == [.log(.lockedOut(.failuresInARow(5))), .show(.refused(.lockedOut))])
    }

    @Test func scansWithoutVerdictCostNothing() {
        var rig = Rig(disk: UserState(strikes: 2), verdicts: [.retry(.general), .retry(.removeFinger), .timedOut], owed: 2)
        #expect(Self.run(&rig) == .timedOut)
        #expect(rig.disk == UserState(strikes: 2))
        #expect(rig.lines == [.show(.retry(.general)), .show(.retry(.removeFinger)), .show(.timedOut)])
    }

    @Test func theRunHelperDrivesTheSameSteps() {
        var rig = Rig(disk: UserState(), verdicts: [.noMatch, .noMatch, .match(0)], owed: 0)
        var loop = ScanLoop(.prompt(maxTries: 3), fingers: [.leftIndex, .rightIndex], canIdentify: false)
        var said: [ScanLoop.Line] = []
        let ending = loop.run(say: { said.append($0) }, perform: { rig.perform($0) })
        #expect(ending == .matched(0))
        #expect(said == [
            .show(.notRecognized), .show(.placeNamedFinger(.rightIndex)),
            .show(.notRecognized), .show(.placeNamedFinger(.leftIndex)),
        ])
        #expect(rig.disk == UserState())
    }
}
