// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth pam-verify`: the helper's side of docs/PROTOCOL.md. Reads the shim's request on
/// stdin, speaks the reply on stdout, and always ends with one `result` line.
package enum PamVerify {
    package static func run() -> Int32 {
        serve(mode: "pam-verify") { request, send in evaluate(request, send: send) }
    }

    /// One exchange of docs/PROTOCOL.md, shared by `pam-verify` and `pam-account`: the header,
    /// the request read and parsed strictly (a bad one: `systemCancel`, exit 2), the lines
    /// `body` sends, and its outcome as the one `result` line.
    static func serve(mode: String, _ body: (Request, @escaping (ReplyLine) -> Void) -> Outcome) -> Int32 {
        let send: (ReplyLine) -> Void = { Files.write($0.encoded, to: 1) }
        Files.write(WireProtocol.replyHeader + "\n", to: 1)
        let request: Request
        do {
            guard let bytes = Files.readAll(0, maxBytes: WireProtocol.maxRequestLines * WireProtocol.maxLineBytes)
            else { throw Request.Error.tooLong }
            request = try Request.parse(bytes)
        } catch {
            Syslog.log(LOG_ERR, "\(mode): malformed request (\(error))")
            send(.result(.systemCancel))
            return 2
        }
        send(.result(body(request, send)))
        return 0
    }

    /// The user the request names and the config to judge it by; nil (logged): `systemCancel`.
    static func subject(of request: Request) -> (Config, UserName, uid_t)? {
        // A caller that is not root (the setuid helper started by a user) gets the root-owned
        // default config, a few harmless arguments, and its own prints only (Privilege.swift).
        let caller = Privilege.restrictedCaller
        let config: Config
        do {
            config = try Config.load(
                arguments: caller.map { Privilege.filter(request.arguments, caller: $0) } ?? request.arguments)
        } catch {
            Syslog.log(LOG_ERR, "configuration refused: \(error)")
            return nil
        }
        guard let (user, uid) = Accounts.lookUp(request.user) else {
            Syslog.log(LOG_ERR, "refusing unknown or malformed user name")
            return nil
        }
        if let caller, !Privilege.mayVerify(request.user, caller: caller) { return nil }
        return (config, user, uid)
    }

    static func evaluate(_ request: Request, send: @escaping (ReplyLine) -> Void) -> Outcome {
        guard let (config, user, uid) = subject(of: request) else { return .systemCancel }
        // `touchauth disable`: the module skips such a user itself when it can see the marker
        // (root); a screen locker's module cannot, so the helper checks too, before the sensor.
        let states = StateStore(directory: config.stateDir)
        let strikes = StrikeStore(states, uid: uid, threshold: config.lockoutThreshold)
        let evaluation = Evaluation(user: user, config: config, strikes: strikes, send: send)
        if states.isDisabled(uid) {
            evaluation.debug("\(user): fingerprint turned off (touchauth disable)")
            return .biometryNotAvailable
        }
        // Before GLib (the bus questions below), libfprint and libusb start threads of their own:
        // they inherit the blocked SIGTERM. A bus thread started first took the module's SIGTERM
        // at its default action and ended the helper before its refund (e2e/polkit "typed while
        // armed -> no strike on disk").
        Termination.install()
        // A locked session: only its lock screen's own conversation, which sends no `session`
        // line, may arm a reader (docs/POLICY.md#a-locked-screen).
        if let session = request.session, evaluation.screenLocked(session) { return .biometryNotAvailable }
        Sensor.configure(config)
        // Asked while the readers are enumerated, answered before the prompt arms (FprintdInUse.swift).
        let fprintd = FprintdQuestion()
        let context = Context()
        // Never released: its teardown joins GLib's and libusb's threads, which would stand
        // between the verdict's write and the `result` line; the exit ends them.
        _ = Unmanaged.passRetained(context)
        // Every reader that has prints of this user, but those inside a closed lid (Readers).
        let store = PrintStore(root: config.printDir)
        let readers: [Readers.Reader]
        do throws(Readers.Refusal) {
            readers = try Readers.armed(context.devices(), user: user, store: store, config: config)
        } catch {
            return evaluation.refused(error)
        }

        var state: UserState
        do {
            state = try states.load(uid)
        } catch {
            return evaluation.lockedOut("state unusable: \(error)")
        }
        // However the attempt ends from here on, the module's audit line gets the strikes.
        defer { send(.strikes(state.strikes)) }
        if let refused = evaluation.admit(&state, prints: store) { return refused }
        // A reader fprintd scans with is not ours to take (FprintdInUse.swift).
        guard let free = evaluation.notHeldByFprintd(readers, fprintd) else { return .systemCancel }
        return evaluation.prompt(free.map { ($0.device, $0.prints) }, request: request, uid: uid, state: &state)
    }
}

/// One `pam-verify` evaluation from the user's state on: the lockout and the trust rules, then the
/// prompt, whose scan loop (ScanLoop) this drives: it performs the loop's scans, has StrikeStore
/// charge and settle their strikes, and says its lines, in the loop's order.
struct Evaluation {
    let user: UserName
    let config: Config
    let strikes: StrikeStore
    let send: (ReplyLine) -> Void

    func debug(_ text: String) { if config.debug { Syslog.log(LOG_DEBUG, text) } }

    /// logind says `session` is locked: logged, said, true (the password at once, no reader
    /// touched, nothing charged). Anything else logind says, or its silence: false.
    func screenLocked(_ session: String) -> Bool {
        let asked = Evaluation.monotonicMicroseconds()
        let answer = ScreenLock.ask(session: session)
        debug("logind answered for session \(session) (waited \(Evaluation.monotonicMicroseconds() - asked) us): "
            + ScreenLock.describe(answer))
        guard answer == .locked(true) else { return false }
        Syslog.log(LOG_NOTICE, "\(user): the screen is locked (logind session \(session)): the password")
        send(Message.screenLocked.replyLine)
        return true
    }

    /// The safe side: the password is always there, and `touchauth unlock` repairs.
    func lockedOut(_ why: String) -> Outcome {
        logLockout(why)
        send(Message.refused(.lockedOut).replyLine)
        return .biometryLockout
    }

    func logLockout(_ why: String) {
        Syslog.log(LOG_ERR, "\(user): \(why); fingerprint locked until the password is used")
    }

    func logLocked(_ strikes: Int) {
        Syslog.log(LOG_NOTICE, "\(user): fingerprint locked after \(strikes) failures in a row")
    }

    /// No reader to arm (Readers.armed): why, logged, and the outcome.
    func refused(_ refusal: Readers.Refusal) -> Outcome {
        switch refusal {
        case .noSensor:
            debug("no fingerprint reader found")
            return .biometryNotAvailable
        case .notEnrolled(let labels):
            debug("\(user) has no prints on \(labels)")
            return .biometryNotEnrolled
        case .lidClosed(let labels):
            debug("lid closed: \(labels) inside it, no external reader with prints of \(user)")
            return .biometryNotAvailable
        case .unreadable(let why):
            Syslog.log(LOG_ERR, "prints of \(user): \(why)")
            return .systemCancel
        }
    }

    /// The lockout and the trust rules, before the sensor is opened: the outcome when they refuse.
    func admit(_ state: inout UserState, prints store: PrintStore) -> Outcome? {
        let facts = SystemFacts.gather(config, user: user, prints: store)
        switch TrustPolicy(config).decide(state, facts) {
        case .refuse(let outcome, let reason):
            debug("\(user): \(outcome.rawValue) (\(reason))")
            send(Message.refused(reason).replyLine)
            if reason == .lockedOut && !state.isLocked {
                // Strikes at the threshold without `locked_at` (TrustPolicy.isLockedOut): written
                // after the message, so a slow disk does not delay it; refused either way.
                do {
                    state = try strikes.recordLockout()
                    if state.isLocked { logLocked(state.strikes) }
                } catch {
                    Syslog.log(LOG_ERR, "\(user): cannot record the lockout: \(error)")
                }
            } else if reason == .lockedOut {
                // A lockout the module did not see (no marker: a state written by hand or before
                // the marker existed; or a screen locker's module, which cannot look): marked now.
                strikes.refreshLockoutMarker()
            }
            return outcome
        case .scan(let expiredLockout):
            if expiredLockout {
                do {
                    state = try strikes.endLockout()
                } catch {
                    return lockedOut("cannot end the lockout: \(error)")
                }
            }
            return nil
        }
    }

    /// Opens the readers, shows the prompt's lines, and runs the scan loop: one reader, or
    /// several armed at once (a round per charged strike, the first verdict on any
    /// of them settles it: ScanRace).
    func prompt(_ readers: [(Device, [(Finger, Print)])], request: Request, uid: uid_t, state: inout UserState) -> Outcome {
        // One deadline for the whole prompt, from the sensor's opening to the last scan.
        let opened = Evaluation.monotonicMilliseconds()
        let cancellable = Cancellable(milliseconds: UInt32(config.timeout) * 1000)
        Termination.watch(cancellable)
        defer { Termination.watch(nil) }
        // One request armed at a time, machine-wide (ArmedRegistry): registered before any reader
        // opens; another armed: neither gets the finger, each says what the other was.
        let registration: ArmedRegistry.Registration
        switch arm(request, uid: uid) {
        case .armed(let armed): registration = armed
        case .refused(let outcome): return outcome
        }
        defer { registration.disarm() }
        let open = Evaluation.open(readers, cancellable)
        defer { for (device, _) in open { device.close() } }
        // None opens: the password.
        guard let (device, prints) = open.first else {
            send(Message.sensorFailed.replyLine)
            return .systemCancel
        }

        // A sensor that cannot identify compares each scan with one print: with several prints
        // it takes them in turn and names the finger it expects, so the user knows which one
        // to place (fprintd only ever tries the first). Several readers are one "sensor" that
        // identifies: the loop's print indices run over every reader's prints, in order.
        var racing = Racing(open)
        var loop = racing.several
            ? ScanLoop(.prompt(maxTries: config.maxTries), fingers: open.flatMap { $0.1.map(\.0) }, canIdentify: true)
            : ScanLoop(.prompt(maxTries: config.maxTries), fingers: prints.map(\.0), canIdentify: device.canIdentify)
        // What the touch approves, the finger's line and the way to the password (PromptLines).
        let lines = PromptLines(request, config)
        let elapsed = { Evaluation.monotonicMilliseconds() - opened }
        for line in lines.opening(loop.prompt, elapsedMilliseconds: elapsed()) { send(line) }
        let say: (ScanLoop.Line) -> Void = { line in
            switch line {
            case .show(let message): send(lines.shown(message, elapsedMilliseconds: elapsed()))
            default: self.say(line)
            }
        }
        let outcome = loop.run(say: say) { action in
            switch action {
            // Once the prompt was ended (Enter, typing, Ctrl-C), no scan is charged or offered.
            case .charge: Termination.requested ? .promptEnded : strikes.charge(&state)
            case .scan(let target):
                racing.several ? scanAll(&racing, cancellable) : scan(target, device, prints, cancellable)
            // Whether the module's SIGTERM cancelled the scan: then the module reads no more.
            case .settle(let settlement): strikes.settle(settlement, &state, promptEnded: Termination.requested)
            }
        }.outcome
        return ended(outcome, registration, request)
    }

    /// The readers that open; one that cannot (unplugged since the enumeration) is left out.
    static func open(_ readers: [(Device, [(Finger, Print)])], _ cancellable: Cancellable) -> [(Device, [(Finger, Print)])] {
        var open: [(Device, [(Finger, Print)])] = []
        for (device, prints) in readers {
            do {
                try device.open(cancellable)
                open.append((device, prints))
            } catch {
                Syslog.log(LOG_ERR, "cannot open \(device.driver)/\(device.deviceID): \(error)")
            }
        }
        return open
    }

    /// The scan loop's outcome, unless a prompt that asked while this one waited ended it (its
    /// SIGTERM): then as Enter (no strike), each named.
    func ended(_ outcome: Outcome, _ registration: ArmedRegistry.Registration, _ request: Request) -> Outcome {
        guard outcome == .systemCancel, let other = registration.endedBy else { return outcome }
        let me = registration.me
        let waited = me.waited(at: ArmedRegistry.boottimeMilliseconds())
        let told = ArmedRegistry.mayShow(other, to: me.uid, restricted: Privilege.restrictedCaller != nil)
            ? Message.otherAsked(line: other.line, place: other.place, seconds: waited) : .otherHiddenAsked(seconds: waited)
        send(.info(Approval.fitted(told.text, columns: request.columns)))
        send(.overlap(other.pid))
        Syslog.log(LOG_NOTICE, "overlap: \(ArmedRegistry.describe(me)) ended after \(waited) s by \(ArmedRegistry.describe(other)); both to the password")
        return .userFallback
    }

    enum Arming {
        case armed(ArmedRegistry.Registration)
        case refused(Outcome)
    }

    /// Registers this prompt as armed, or says why it may not arm: another request is armed
    /// (each named, the password), or the registry cannot be used (the password).
    func arm(_ request: Request, uid: uid_t) -> Arming {
        // What the prompt approves; a setuid helper's request is the caller's own text: only its
        // service and user are shown. A service name is shown only if it looks like one.
        let plain = request.service.utf8.count <= 64 && request.service.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.@".unicodeScalars.contains($0))
        }
        let service = plain ? request.service : "?"
        let line: String
        if Privilege.restrictedCaller != nil {
            line = "\(service) (\(user))"
        } else if let approval = request.approval {
            line = Message.approve(approval).text
        } else {
            line = config.reason.isEmpty ? service : config.reason
        }
        guard let me = ArmedRegistry.current(uid: uid, line: line, service: service, display: request.display) else {
            Syslog.log(LOG_ERR, "cannot read this process's own facts in /proc: not armed")
            send(Message.sensorFailed.replyLine)
            return .refused(.systemCancel)
        }
        switch ArmedRegistry.arm(me) {
        case .armed(let registration):
            return .armed(registration)
        case .unusable(let why):
            Syslog.log(LOG_ERR, "the registry of armed requests: \(why); not armed")
            send(Message.sensorFailed.replyLine)
            return .refused(.systemCancel)
        case .overlap(let others):
            let now = ArmedRegistry.boottimeMilliseconds()
            for other in others {
                let waited = other.waited(at: now)
                let told = ArmedRegistry.mayShow(other, to: uid, restricted: Privilege.restrictedCaller != nil)
                    ? Message.otherWasWaiting(line: other.line, place: other.place, seconds: waited) : .otherHiddenWasWaiting
                send(.info(Approval.fitted(told.text, columns: request.columns)))
                Syslog.log(LOG_NOTICE, "overlap: \(ArmedRegistry.describe(me)) not armed: \(ArmedRegistry.describe(other)) was armed for \(waited) s; both to the password")
            }
            // The audit line names one: the oldest (the one a stray touch would have answered).
            if let oldest = others.first { send(.overlap(oldest.pid)) }
            return .refused(.userFallback)
        }
    }

    static func monotonicMilliseconds() -> Int { monotonicMicroseconds() / 1000 }

    static func monotonicMicroseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
    }

    func say(_ line: ScanLoop.Line) {
        switch line {
        case .show(let message): send(message.replyLine)
        case .log(.lockedOut(.failuresInARow(let strikes))): logLockout("\(strikes) failures in a row")
        case .log(.lockedOut(.strikeNotRecorded(let error))): logLockout("cannot record a strike: \(error)")
        case .log(.lockedOut(.refundNotRecorded(let error))): logLockout("cannot refund a strike: \(error)")
        case .log(.locked(let strikes)): logLocked(strikes)
        // The finger is right; the charged strike stays until the next match or password.
        case .log(.strikesNotReset(let error)): Syslog.log(LOG_ERR, "\(user): cannot reset strikes: \(error)")
        }
    }

    func scan(_ target: ScanLoop.Target, _ device: Device, _ prints: [(Finger, Print)], _ cancellable: Cancellable) -> ScanLoop.Event {
        // As the sensor reports, before the scan completes (an image sensor: once the finger is lifted).
        let (verdict, failure) = Sensor.scan(device, target, prints, cancellable) { reported in
            switch reported {
            case .match(let index): debug("\(user): the sensor reported a match (\(prints[index].0.name))")
            case .noMatch: debug("\(user): the sensor reported no match")
            default: break
            }
        }
        if case .match(let index) = verdict { debug("\(user): matched \(prints[index].0.name)") }
        if let failure { Syslog.log(LOG_ERR, "\(device.driver)/\(device.deviceID): \(failure)") }
        return .scanned(verdict)
    }

    /// One round on several readers (ScanRace): each compares with its prints (all at once where
    /// it identifies, else one per round in turn), the first verdict settles the round, a reader
    /// that failed is dropped for the rounds after. None left: the sensor failed.
    func scanAll(_ racing: inout Racing, _ cancellable: Cancellable) -> ScanLoop.Event {
        let entries = racing.readers.map { reader in
            (reader.device, reader.target(round: racing.round))
        }
        racing.round += 1
        let (winner, results) = ScanRace.run(entries, cancellable)
        var dropped: [Int] = []
        for (index, result) in results.enumerated() {
            guard case .failed(let failure) = result else { continue }
            let device = racing.readers[index].device
            Syslog.log(LOG_ERR, "\(device.driver)/\(device.deviceID): \(failure); the other readers go on")
            dropped.append(index)
        }
        let verdict: ScanLoop.Verdict
        if let winner {
            let reader = racing.readers[winner]
            switch results[winner] {
            case .match(let index):
                let global = reader.globalIndex(index, round: racing.round - 1)
                debug("\(user): matched \(reader.prints[global - reader.offset].0.name) on \(Sensor.label(reader.device))")
                verdict = .match(global)
            case .noMatch:
                debug("\(user): no match on \(Sensor.label(reader.device))")
                verdict = .noMatch
            case .retry(let hint): verdict = .retry(hint)
            case .cancelled, .failed: verdict = .failed  // (never a winner)
            }
        } else {
            verdict = cancellable.isCancelled || dropped.count < racing.readers.count ? .timedOut : .failed
        }
        racing.readers = racing.readers.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
        return .scanned(verdict)
    }
}

/// The readers of a prompt with several (Evaluation.scanAll): those still in the race, each with
/// its prints' place among all of them, and the rounds so far.
struct Racing {
    struct Reader {
        let device: Device
        let prints: [(Finger, Print)]
        /// Where its prints start in the scan loop's list of every reader's prints.
        let offset: Int

        /// What it compares this round's scan with.
        func target(round: Int) -> ScanRace.Target {
            if device.canIdentify && prints.count > 1 { return .identify(prints.map(\.1)) }
            return .verify(prints[round % prints.count].1)
        }

        /// The scan loop's index of the print a scan of `round` matched (`index` into its target).
        func globalIndex(_ index: Int, round: Int) -> Int {
            if device.canIdentify && prints.count > 1 { return offset + index }
            return offset + round % prints.count
        }
    }

    var readers: [Reader]
    var round = 0
    let several: Bool

    init(_ open: [(Device, [(Finger, Print)])]) {
        var offset = 0
        readers = open.map { device, prints in
            defer { offset += prints.count }
            return Reader(device: device, prints: prints, offset: offset)
        }
        several = open.count > 1
    }
}
