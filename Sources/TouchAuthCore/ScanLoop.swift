// SPDX-License-Identifier: Apache-2.0
/// The scan loop, a pure state machine (docs/POLICY.md#outcomes, docs/POLICY.md#strikes): a driver
/// performs each step's lines and action and reports what came of it as the next event.
/// A prompt's round (`pam-verify`): `.charge` -> `.scan` -> `.settle`, then its lines; a check's
/// (`verify`, `enable`): `.scan`, then its lines. Both end as `Ending` says.
public struct ScanLoop: Equatable, Sendable {
    public enum Mode: Equatable, Sendable {
        /// `pam-verify`: a strike charged before every scan and settled after it; `maxTries`
        /// wrong fingers end the prompt (`Attempt`), the lockout threshold ends it at once.
        case prompt(maxTries: Int)
        /// `verify`, `enable`: no strikes; each print is scanned once (one scan where the sensor
        /// identifies), naming the next finger; the last wrong finger ends it.
        case check
    }

    /// What one scan compares the finger with.
    public enum Target: Equatable, Sendable {
        /// Every print at once (`fp_device_identify_sync`).
        case identify
        /// The print at this index (`fp_device_verify_sync`).
        case verify(Int)
    }

    /// What one scan came to.
    public enum Verdict: Equatable, Sendable {
        /// The print at this index matched.
        case match(Int)
        case noMatch
        /// The sensor's retry condition: a hint, not a strike.
        case retry(RetryHint)
        /// The prompt's deadline ran out, or the scan was cancelled (SIGTERM, Ctrl-C).
        case timedOut
        /// The sensor failed (unplugged, busy, protocol error).
        case failed

        var attemptScan: Attempt.Scan {
            switch self {
            case .match: .match
            case .noMatch: .noMatch
            case .retry(let hint): .retry(hint)
            case .timedOut: .timedOut
            case .failed: .failed
            }
        }
    }

    /// What came of the action the loop asked for.
    public enum Event: Equatable, Sendable {
        /// Instead of `.charge`: the prompt was ended (Enter, typing, Ctrl-C) before it; nothing
        /// was charged, and nothing is scanned.
        case promptEnded
        /// The strike is on disk.
        case charged
        /// The strikes were already at the threshold (`UserState.charge` said no, and locked).
        case chargeRefused(strikes: Int)
        /// The strike could not be written.
        case chargeFailed(String)
        case scanned(Verdict)
        /// The settlement is written: the strikes now, whether they locked, and whether the
        /// prompt has been ended by now.
        case settled(strikes: Int, locked: Bool, promptEnded: Bool)
        /// The settlement could not be written.
        case settleFailed(String)
    }

    /// What the driver does next and reports back as an event.
    public enum Action: Equatable, Sendable {
        case charge
        case scan(Target)
        case settle(StrikeSettlement)
    }

    /// A line for the user or for the log, in the order given.
    public enum Line: Equatable, Sendable {
        case show(Message)
        case log(Note)
    }

    /// What the log is told (the driver words it: user name, priority).
    public enum Note: Equatable, Sendable {
        /// Locked, the safe side: "…; fingerprint locked until the password is used".
        case lockedOut(LockoutCause)
        /// This wrong finger reached the threshold: "fingerprint locked after N failures in a row".
        case locked(afterStrikes: Int)
        /// A match whose reset could not be written: the charged strike stays.
        case strikesNotReset(String)
    }

    /// Why a prompt locked without a wrong finger of its own to show for it.
    public enum LockoutCause: Equatable, Sendable {
        /// The strikes were already at the threshold when this prompt charged.
        case failuresInARow(Int)
        case strikeNotRecorded(String)
        case refundNotRecorded(String)
    }

    /// How the loop ended; `outcome` is the prompt's result line.
    public enum Ending: Equatable, Sendable {
        /// The print at this index matched.
        case matched(Int)
        /// The tries are used up (a prompt's `maxTries`, a check's prints).
        case notRecognized
        /// The lockout threshold: the password from now on.
        case lockedOut
        case timedOut
        case sensorFailed
        /// The prompt was ended: the module reads no more.
        case promptEnded

        public var outcome: Outcome {
            switch self {
            case .matched: .success
            case .notRecognized: .authenticationFailed
            case .lockedOut: .biometryLockout
            case .timedOut, .sensorFailed, .promptEnded: .systemCancel
            }
        }
    }

    /// The lines to say, then the action to perform (or the end).
    public enum Step: Equatable, Sendable {
        case perform([Line], Action)
        case finish([Line], Ending)

        public var lines: [Line] {
            switch self {
            case .perform(let lines, _), .finish(let lines, _): lines
            }
        }

        public var action: Action? {
            if case .perform(_, let action) = self { return action }
            return nil
        }
    }

    public let mode: Mode
    /// The fingers of the user's prints, in the order the driver holds the prints.
    public let fingers: [Finger]
    /// Identify (every print in one scan) rather than verify the prints in turn; a prompt with
    /// one print verifies it.
    public let identifies: Bool
    private var attempt: Attempt?
    private var turn = 0
    private var phase = Phase.idle

    private enum Phase: Equatable, Sendable {
        case idle, charging
        case scanning(Target)
        case settling(Verdict)
        case over(Ending)
    }

    public init(_ mode: Mode, fingers: [Finger], canIdentify: Bool) {
        self.mode = mode
        self.fingers = fingers
        switch mode {
        case .prompt(let maxTries):
            identifies = canIdentify && fingers.count > 1
            attempt = Attempt(maxTries: maxTries)
        case .check:
            identifies = canIdentify
        }
    }

    /// Several prints and no identify: the prints in turn, each finger named.
    var rotates: Bool { !identifies && fingers.count > 1 }

    var target: Target { identifies ? .identify : .verify(turn % max(fingers.count, 1)) }

    /// The first line of the prompt: the finger expected, where the prints are taken in turn.
    public var prompt: Message { rotates ? .placeNamedFinger(fingers[0]) : .placeFinger }

    /// The first step (after the driver showed `prompt`).
    public mutating func start() -> Step {
        guard phase == .idle else { return outOfStep() }
        guard !fingers.isEmpty else { return end([], .sensorFailed) }
        return attempt == nil ? scan([]) : charge([])
    }

    /// The next step, after what came of the last action.
    public mutating func handle(_ event: Event) -> Step {
        switch (phase, event) {
        case (.charging, .promptEnded): return end([], .promptEnded)
        case (.charging, .charged): return scan([])
        case (.charging, .chargeRefused(let strikes)): return lockOut(.lockedOut(.failuresInARow(strikes)))
        case (.charging, .chargeFailed(let why)): return lockOut(.lockedOut(.strikeNotRecorded(why)))
        case (.scanning(let target), .scanned(let verdict)):
            let verdict = accepts(verdict, for: target) ? verdict : .failed
            guard attempt != nil else { return checkScanned(verdict) }
            phase = .settling(verdict)
            return .perform([], .settle(verdict.settlement))
        case (.settling(let verdict), .settleFailed(let why)):
            switch verdict {
            case .match(let index): return end([.log(.strikesNotReset(why))], .matched(index))
            case .noMatch: return lockOut(.lockedOut(.strikeNotRecorded(why)))
            case .retry, .timedOut, .failed: return lockOut(.lockedOut(.refundNotRecorded(why)))
            }
        case (.settling(let verdict), .settled(let strikes, let locked, let promptEnded)):
            // Cancelled by the module's SIGTERM: refunded; the module reads no more.
            if verdict == .timedOut && promptEnded { return end([], .promptEnded) }
            if verdict == .noMatch && locked { return lockOut(.locked(afterStrikes: strikes)) }
            return settled(verdict)
        default:
            return outOfStep()
        }
    }

    /// Runs the loop to its end: says each step's lines, performs its action, reports back.
    public mutating func run(say: (Line) -> Void, perform: (Action) -> Event) -> Ending {
        var step = start()
        while true {
            step.lines.forEach(say)
            switch step {
            case .perform(_, let action): step = handle(perform(action))
            case .finish(_, let ending): return ending
            }
        }
    }

    // MARK: the steps

    private mutating func charge(_ lines: [Line]) -> Step {
        phase = .charging
        return .perform(lines, .charge)
    }

    private mutating func scan(_ lines: [Line]) -> Step {
        phase = .scanning(target)
        return .perform(lines, .scan(target))
    }

    private mutating func end(_ lines: [Line], _ ending: Ending) -> Step {
        phase = .over(ending)
        return .finish(lines, ending)
    }

    private mutating func lockOut(_ note: Note) -> Step {
        end([.log(note), .show(.refused(.lockedOut))], .lockedOut)
    }

    /// An event the loop did not ask for (a driver out of step) ends it, never in a success;
    /// an ended loop stays ended.
    private mutating func outOfStep() -> Step {
        if case .over(let ending) = phase { return .finish([], ending) }
        return end([], .sensorFailed)
    }

    /// A match must name a print the scan compared with.
    private func accepts(_ verdict: Verdict, for target: Target) -> Bool {
        guard case .match(let index) = verdict else { return true }
        switch target {
        case .identify: return fingers.indices.contains(index)
        case .verify(let expected): return index == expected
        }
    }

    /// A prompt's settled scan: the attempt's rules say whether to scan again.
    private mutating func settled(_ verdict: Verdict) -> Step {
        guard var attempt else { return outOfStep() }
        let next = attempt.record(verdict.attemptScan)
        self.attempt = attempt
        switch next {
        case .scanAgain(let message):
            var lines: [Line] = [.show(message)]
            if rotates && verdict == .noMatch {
                turn += 1
                lines.append(.show(.placeNamedFinger(fingers[turn % fingers.count])))
            }
            return charge(lines)
        case .finish(_, let message):
            return end(message.map { [.show($0)] } ?? [], ending(verdict))
        }
    }

    /// A check's scan: the next print, or the end.
    private mutating func checkScanned(_ verdict: Verdict) -> Step {
        switch verdict {
        case .match(let index): return end([], .matched(index))
        case .noMatch:
            guard !identifies, turn + 1 < fingers.count else { return end([], .notRecognized) }
            turn += 1
            return scan([.show(.placeNamedFinger(fingers[turn]))])
        case .retry(let hint): return scan([.show(.retry(hint))])
        case .timedOut: return end([], .timedOut)
        case .failed: return end([], .sensorFailed)
        }
    }

    /// How a prompt's last scan ends it (the attempt ends on every verdict but a retry).
    private func ending(_ verdict: Verdict) -> Ending {
        switch verdict {
        case .match(let index): .matched(index)
        case .noMatch: .notRecognized
        case .timedOut: .timedOut
        case .failed, .retry: .sensorFailed
        }
    }
}
