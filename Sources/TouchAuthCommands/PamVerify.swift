import Fingerprint
import Glibc
import TouchAuthCore

/// `touchauth pam-verify`: the helper's side of docs/PROTOCOL.md. Reads the shim's request on
/// stdin, speaks the reply on stdout, and always ends with one `result` line.
enum PamVerify {
    static func run() -> Int32 {
        serve(mode: "pam-verify") { request, send in evaluate(request, send: send) }
    }

    /// One exchange of docs/PROTOCOL.md, shared by `pam-verify` and `pam-account`: the header,
    /// the request read and parsed strictly (a bad one: `systemCancel`, exit 2), the lines
    /// `body` sends, and its outcome as the one `result` line.
    static func serve(mode: String, _ body: (Request, (ReplyLine) -> Void) -> Outcome) -> Int32 {
        let send: (ReplyLine) -> Void = { System.write($0.encoded, to: 1) }
        System.write(WireProtocol.replyHeader + "\n", to: 1)
        let request: Request
        do {
            guard let bytes = System.readAll(0, maxBytes: WireProtocol.maxRequestLines * WireProtocol.maxLineBytes)
            else { throw Request.Error.tooLong }
            request = try Request.parse(bytes)
        } catch {
            System.log(LOG_ERR, "\(mode): malformed request (\(error))")
            send(.result(.systemCancel))
            return 2
        }
        send(.result(body(request, send)))
        return 0
    }

    static func evaluate(_ request: Request, send: (ReplyLine) -> Void) -> Outcome {
        // A caller that is not root (the setuid helper started by a user) gets the root-owned
        // default config, a few harmless arguments, and its own prints only (Privilege.swift).
        let caller = Privilege.restrictedCaller
        let config: Config
        do {
            config = try Settings.load(
                arguments: caller.map { Privilege.filter(request.arguments, caller: $0) } ?? request.arguments)
        } catch {
            System.log(LOG_ERR, "configuration refused: \(error)")
            return .systemCancel
        }
        let debug: (String) -> Void = { if config.debug { System.log(LOG_DEBUG, $0) } }
        guard let (user, uid) = System.lookUpUser(request.user) else {
            System.log(LOG_ERR, "refusing unknown or malformed user name")
            return .systemCancel
        }
        if let caller, !Privilege.mayVerify(request.user, caller: caller) { return .systemCancel }
        // `touchauth disable`: the module skips such a user itself when it can see the marker
        // (root); a screen locker's module cannot, so the helper checks too, before the sensor.
        if StateStore(directory: config.stateDir).isDisabled(uid) {
            debug("\(user): fingerprint turned off (touchauth disable)")
            return .biometryNotAvailable
        }
        // Before libfprint and GLib start threads of their own (they inherit the blocked SIGTERM).
        Termination.install()
        Sensor.configure(config)
        let context = Context()
        let devices = context.devices()
        guard !devices.isEmpty else {
            debug("no fingerprint reader found")
            return .biometryNotAvailable
        }
        // The first sensor that has prints for this user (a user may have enrolled on one of several).
        let store = PrintStore(root: config.printDir)
        var chosen: (Device, [(Finger, Print)])?
        for device in devices {
            do {
                let prints = try store.prints(user: user, device: device)
                if !prints.isEmpty {
                    chosen = (device, prints)
                    break
                }
            } catch {
                System.log(LOG_ERR, "prints of \(user): \(error)")
                return .systemCancel
            }
        }
        guard let (device, prints) = chosen else {
            debug("\(user) has no prints on \(devices.map { "\($0.driver)/\($0.deviceID)" })")
            return .biometryNotEnrolled
        }

        // The lockout and the trust rules, before the sensor is opened.
        let states = StateStore(directory: config.stateDir)
        func lockedOut(_ why: String) -> Outcome {
            // The safe side: the password is always there, and `touchauth unlock` repairs.
            System.log(LOG_ERR, "\(user): \(why); fingerprint locked until the password is used")
            send(Message.refused(.lockedOut).replyLine)
            return .biometryLockout
        }
        var state: UserState
        do {
            state = try states.load(uid)
        } catch {
            return lockedOut("state unusable: \(error)")
        }
        // However the attempt ends from here on, the module's audit line gets the strikes.
        defer { send(.strikes(state.strikes)) }
        let facts = Facts.gather(config, user: user, prints: store)
        switch TrustPolicy(config).decide(state, facts) {
        case .refuse(let outcome, let reason):
            debug("\(user): \(outcome.rawValue) (\(reason))")
            send(Message.refused(reason).replyLine)
            if reason == .lockedOut && !state.isLocked {
                // The strikes reached the threshold but `locked_at` never made it to disk (a
                // helper killed mid-write): written now (after the message: a slow disk does not
                // delay it), so status shows the lockout and `unlock_time` runs from here
                // (TrustPolicy.decide). Refused either way, written or not.
                do {
                    state = try states.update(uid) { $0.lockIfDue(threshold: config.lockoutThreshold, now: Facts.now()) }
                    if state.isLocked {
                        System.log(LOG_NOTICE, "\(user): fingerprint locked after \(state.strikes) failures in a row")
                    }
                } catch {
                    System.log(LOG_ERR, "\(user): cannot record the lockout: \(error)")
                }
            }
            return outcome
        case .scan(let expiredLockout):
            if expiredLockout {
                do {
                    state = try states.update(uid) { $0.unlock() }
                } catch {
                    return lockedOut("cannot end the lockout: \(error)")
                }
            }
        }

        // One deadline for the whole prompt, from the sensor's opening to the last scan.
        let cancellable = Cancellable(milliseconds: UInt32(config.timeout) * 1000)
        Termination.watch(cancellable)
        defer { Termination.watch(nil) }
        do {
            try device.open(cancellable)
        } catch {
            System.log(LOG_ERR, "cannot open \(device.driver)/\(device.deviceID): \(error)")
            send(Message.sensorFailed.replyLine)
            return .systemCancel
        }
        defer { device.close() }

        // A sensor that cannot identify compares each scan with one print: with several prints
        // it takes them in turn and names the finger it expects, so the user knows which one
        // to place (fprintd only ever tries the first).
        let identify = prints.count > 1 && device.canIdentify
        let rotate = prints.count > 1 && !identify
        var turn = 0
        if !config.reason.isEmpty { send(.info(config.reason)) }
        send((rotate ? Message.placeNamedFinger(prints[0].0) : .placeFinger).replyLine)
        if !config.fallbackTitle.isEmpty {
            // The shim says whether it takes Enter (a terminal it owns); the hint must not promise
            // a key that does nothing.
            let hint: Message = request.fallback == .enter
                ? .fallbackKeyHint(title: config.fallbackTitle)
                : .fallbackHint(title: config.fallbackTitle, timeout: config.timeout)
            send(hint.replyLine)
        }

        var attempt = Attempt(maxTries: config.maxTries)
        while true {
            // The prompt was ended (Enter, typing, Ctrl-C): no scan is charged or offered.
            if Termination.requested { return .systemCancel }
            // No free try, in every mode: the strike is on disk before the sensor is armed
            // (after the prompt lines above, so the prompt comes no later), and settled after the
            // scan. Whatever kills the helper in between (the user's own SIGKILL of the setuid
            // helper; the module's SIGKILL after Enter while a slow disk holds the write) leaves
            // the strike counted, never a wrong finger for free.
            do {
                var allowed = true
                state = try states.update(uid) {
                    allowed = $0.charge(threshold: config.lockoutThreshold, now: Facts.now())
                }
                if !allowed { return lockedOut("\(state.strikes) failures in a row") }
            } catch {
                return lockedOut("cannot record a strike: \(error)")
            }
            let scan: Attempt.Scan
            do throws(FingerprintError) {
                if identify {
                    let index = try device.identify(prints.map(\.1), cancellable)
                    scan = index == nil ? .noMatch : .match
                    if let index { debug("\(user): matched \(prints[index].0.name)") }
                } else {
                    scan = try device.verify(prints[turn % prints.count].1, cancellable) ? .match : .noMatch
                    if scan == .match { debug("\(user): matched \(prints[turn % prints.count].0.name)") }
                }
            } catch {
                switch error {
                case .retry(let hint): scan = .retry(hint)
                case .cancelled: scan = .timedOut
                default:
                    System.log(LOG_ERR, "\(device.driver)/\(device.deviceID): \(error)")
                    scan = .failed
                }
            }
            // Settle the charge: a match starts the strikes over, a wrong finger keeps its strike
            // (and locks at the threshold), a scan without a verdict gets it back. Only the wrong
            // finger's write must survive a crash of the machine; the others give back, and a
            // crash that undid them would leave one strike too many (scripts/bench.sh: the two
            // fsyncs were most of a match's ~1.5 ms).
            do {
                state = try states.update(uid, durable: scan == .noMatch) {
                    switch scan {
                    case .match: $0.matched()
                    case .noMatch: $0.chargedNoMatch(threshold: config.lockoutThreshold, now: Facts.now())
                    case .retry, .timedOut, .failed: $0.refund()
                    }
                }
            } catch {
                switch scan {
                case .match:
                    // The finger is right; the charged strike stays until the next match or password.
                    System.log(LOG_ERR, "\(user): cannot reset strikes: \(error)")
                case .noMatch: return lockedOut("cannot record a strike: \(error)")
                case .retry, .timedOut, .failed: return lockedOut("cannot refund a strike: \(error)")
                }
            }
            // Cancelled by the module's SIGTERM: refunded above; the module reads no more.
            if scan == .timedOut && Termination.requested { return .systemCancel }
            if scan == .noMatch && state.isLocked {
                System.log(LOG_NOTICE, "\(user): fingerprint locked after \(state.strikes) failures in a row")
                send(Message.refused(.lockedOut).replyLine)
                return .biometryLockout
            }
            switch attempt.record(scan) {
            case .scanAgain(let message):
                send(message.replyLine)
                if rotate && scan == .noMatch {
                    turn += 1
                    send(Message.placeNamedFinger(prints[turn % prints.count].0).replyLine)
                }
            case .finish(let outcome, let message):
                if let message { send(message.replyLine) }
                return outcome
            }
        }
    }
}

/// The module ends a prompt (Enter, typing, Ctrl-C) with SIGTERM, and SIGKILL 200 ms later. From
/// the sensor's setup on, SIGTERM does not end the helper: it is blocked in every thread and
/// taken by one of its own (sigwait), which cancels the scan in progress. That scan ends without
/// a verdict, so its charged strike is refunded (pressing Enter is not a wrong finger), and no
/// further scan is charged. A helper that cannot finish the refund within the grace (a slow
/// disk) is SIGKILLed and keeps the strike: the safe side. A verdict reached before the cancel
/// stands (libfprint returns it), so a wrong finger followed by Enter keeps its strike.
enum Termination {
    private nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()
    private nonisolated(unsafe) static var target: Cancellable?  // under `lock`
    private nonisolated(unsafe) static var received = false  // under `lock`

    static func install() {
        _ = lock
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else { return }
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { _ in
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGTERM)
            var signal: Int32 = 0
            while true {
                guard sigwait(&set, &signal) == 0 else { continue }
                pthread_mutex_lock(Termination.lock)
                Termination.received = true
                Termination.target?.cancel()  // g_cancellable_cancel: thread-safe
                pthread_mutex_unlock(Termination.lock)
            }
        }, nil)
        if started == 0 {
            pthread_detach(thread)
        } else {
            // No thread to take it: SIGTERM ends the helper as before (the charge stays).
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
    }

    /// The scan's cancellable, cancelled at once if SIGTERM already came; nil before it goes.
    static func watch(_ cancellable: Cancellable?) {
        pthread_mutex_lock(lock)
        target = cancellable
        if received { cancellable?.cancel() }
        pthread_mutex_unlock(lock)
    }

    static var requested: Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return received
    }
}
