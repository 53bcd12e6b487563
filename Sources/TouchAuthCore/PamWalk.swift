// SPDX-License-Identifier: Apache-2.0
/// What each module line may return on a walk: doctor's assumptions, by module. A line's
/// `results` are the values the walk tries.
public enum PamModuleKind: Equatable, Sendable {
    /// pam_touchauth's verify line: `authinfo_unavail` (fell through to the password: the case
    /// that matters) or `success` (a match: the authsucc line records nothing after one).
    case finger
    /// `pam_touchauth.so ... authsucc ...` (the word anywhere, as pam_faillock's mode): `ignore`.
    case recorder
    /// A password: pam_unix, pam_krb5, pam_ldap, pam_winbind, pam_sss without a cert option.
    /// `success` or `auth_err`.
    case password
    /// A primary module that is not a password: `success`, `auth_err` or `authinfo_unavail`
    /// (no reader, card or key: controls such as Fedora's pam_sss try_cert_auth line tell the
    /// two failures apart).
    case authenticator(Credential)
    /// pam_succeed_if, pam_rootok, pam_usertype, pam_localuser: `success` or `auth_err` (their
    /// failures jump: Fedora's `[default=1 ...] pam_localuser.so` skips pam_unix).
    case condition
    /// `success` only.
    case permit
    /// `auth_err` only.
    case deny
    /// pam_faillock: `auth_err` for `authfail`, else (`preauth`, `authsucc`) `success`: a
    /// `sufficient pam_faillock.so authsucc` ends the stack.
    case faillock
    /// Anything else (pam_env, pam_faildelay, pam_nologin, pam_cap, ...): `ignore`.
    case other
    /// A line libpam cannot run: `perm_denied`.
    case broken

    public enum Credential: Equatable, Sendable { case fingerprint, securityKey, smartcard, other }
}

extension PamLine {
    public var kind: PamModuleKind {
        if broken { return .broken }
        switch moduleName {
        case "pam_touchauth": return isRecorder ? .recorder : .finger
        case "pam_unix", "pam_krb5", "pam_ldap", "pam_winbind": return .password
        case "pam_sss":
            return args.contains { $0 == "try_cert_auth" || $0 == "require_cert_auth" } ? .authenticator(.smartcard) : .password
        case "pam_fprintd": return .authenticator(.fingerprint)
        case "pam_u2f", "pam_yubico": return .authenticator(.securityKey)
        case "pam_succeed_if", "pam_rootok", "pam_usertype", "pam_localuser": return .condition
        case "pam_permit": return .permit
        case "pam_deny": return .deny
        case "pam_faillock": return .faillock
        default: return .other
        }
    }

    /// `auth optional pam_touchauth.so authsucc`: notes a typed password, recorded if the whole
    /// stack succeeds (docs/POLICY.md#lockout). The word may stand anywhere among the arguments.
    public var isRecorder: Bool { moduleName == "pam_touchauth" && args.contains("authsucc") }

    /// The values the walk tries for this line.
    public var results: [PamResult] {
        switch kind {
        case .finger: [.authinfoUnavail, .success]
        case .recorder, .other: [.ignore]
        case .password, .condition: [.success, .authErr]
        case .authenticator: [.success, .authErr, .authinfoUnavail]
        case .permit: [.success]
        case .deny: [.authErr]
        case .faillock: args.contains("authfail") ? [.authErr] : [.success]
        case .broken: [.permDenied]
        }
    }
}

/// One way through a stack: the lines libpam ran, in order, with what each returned, and the
/// result of pam_authenticate.
public struct PamPath: Equatable, Sendable {
    public struct Step: Equatable, Sendable {
        public let line: PamLine
        public let result: PamResult
    }

    public let steps: [Step]
    /// PAM_SUCCESS: the status is success and the impression positive (libpam's last check).
    public let succeeded: Bool
    public let status: PamResult

    /// Whether the authsucc line ran.
    public var recorderRan: Bool { steps.contains { $0.line.kind == .recorder } }
    /// Whether our finger line matched (then the authsucc line records nothing).
    public var fingerMatched: Bool { steps.contains { $0.line.kind == .finger && $0.result == .success } }
    /// Whether a password module succeeded.
    public var passwordSucceeded: Bool { steps.contains { $0.line.kind == .password && $0.result == .success } }
    /// Whether an authsucc line ran after a password succeeded (the line notes the password on
    /// the handle when it runs: one asked for later is not there yet).
    public var recorderAfterPassword: Bool {
        guard let first = steps.firstIndex(where: { $0.line.kind == .password && $0.result == .success }) else { return false }
        return steps[first...].contains { $0.line.kind == .recorder }
    }

    /// The line to name for a success without a password: a module that authenticates by
    /// something else first, then a condition, pam_permit, anything that succeeded.
    public var grantor: PamLine? {
        func rank(_ kind: PamModuleKind) -> Int? {
            switch kind {
            case .authenticator: 0
            case .condition: 1
            case .permit: 2
            case .faillock, .other: 3
            case .finger, .recorder, .password, .deny, .broken: nil
            }
        }
        let ranked = steps.filter { $0.result == .success }.compactMap { step in rank(step.line.kind).map { ($0, step.line) } }
        return ranked.min { $0.0 < $1.0 }?.1
    }
}

extension PamStack {
    /// Every way through the stack, trying each line's `results` (a depth-first walk: the
    /// choices of one path, then the next). At most `limit`; `complete` is false when there
    /// were more.
    public func paths(limit: Int = 4096) -> (paths: [PamPath], complete: Bool) {
        var out: [PamPath] = []
        var choices: [Int] = []
        while true {
            var walk = Walk(choices: choices)
            walk.run(items)
            out.append(walk.path)
            // The next path: the last choice that has an option left, the ones after it reset.
            var next = walk.branching.indices.map { $0 < choices.count ? choices[$0] : 0 }
            while let last = next.last, last + 1 >= walk.branching[next.count - 1] { next.removeLast() }
            if next.isEmpty { return (out, true) }
            if out.count >= limit { return (out, false) }
            next[next.count - 1] += 1
            choices = next
        }
    }

    /// `_pam_dispatch_aux` for one path: the impression and status it keeps, the actions.
    struct Walk {
        enum Impression { case undefined, positive, negative }

        let choices: [Int]
        var branching: [Int] = []
        var steps: [PamPath.Step] = []
        var impression = Impression.undefined
        var status = PamResult.permDenied  // PAM_MUST_FAIL_CODE

        init(choices: [Int]) { self.choices = choices }

        var path: PamPath {
            PamPath(steps: steps, succeeded: status == .success && impression == .positive, status: status)
        }

        mutating func choose(_ line: PamLine) -> PamResult {
            let options = line.results
            let pick = branching.count < choices.count ? choices[branching.count] : 0
            branching.append(options.count)
            return options[pick]
        }

        /// Runs one frame (the stack, or a substack): returns where libpam leaves it.
        mutating func run(_ frame: [PamStack.Item]) {
            let start = (impression, status)  // for `reset`
            var index = 0
            while index < frame.count {
                let line: PamLine
                switch frame[index] {
                case .substack(_, let inner):
                    run(inner)
                    index += 1
                    continue
                case .module(let module):
                    line = module
                }
                let result = choose(line)
                steps.append(PamPath.Step(line: line, result: result))
                let action = line.action(for: result)
                switch action {
                case .reset:
                    (impression, status) = start
                case .ok, .done:
                    if impression == .undefined || (impression == .positive && status == .success) {
                        impression = .positive
                        status = result
                    }
                    if impression == .positive && action == .done { return }
                case .bad, .die:
                    if impression != .negative {
                        impression = .negative
                        status = result == .ignore ? .permDenied : result
                    }
                    if action == .die { return }
                case .ignore:
                    break
                case .jump(let count):
                    // Past the frame's last line: "bad jump in stack"; libpam goes on after the frame.
                    if index + count >= frame.count {
                        impression = .negative
                        status = .permDenied
                        return
                    }
                    index += count
                }
                index += 1
            }
        }
    }
}

/// doctor's judgement of one service under the module's rule (docs/POLICY.md#lockout): the authsucc line
/// notes a typed password when our finger line did not match, and the password is recorded
/// only when the whole pam_authenticate then succeeds. So a failed stack records nothing,
/// wherever the line stands; what the module cannot tell is a stack that succeeds through a
/// module that is not a password after a password was typed.
public enum PamReview {
    public enum Finding: Equatable, Sendable {
        /// FAIL: our finger line and pam_fprintd (that line) in one stack: two finger prompts.
        case fprintdToo(PamLine)
        /// FAIL: on a path that succeeds, this line's success reaches the authsucc line and no
        /// password succeeded.
        case withoutPassword(PamLine)
        /// WARN: pam_unix comes before our finger line.
        case passwordFirst
        /// WARN: no authsucc line; `finger` for where to say it goes.
        case noRecorder(password: String, finger: PamLine)
        /// WARN: the authsucc line runs only before the password succeeds.
        case recorderBeforePassword(password: String)
        /// WARN: after the password succeeded and the authsucc line ran, the stack fails.
        case failsAfterRecorder(password: String)
        /// WARN: the authsucc line is not reached after the password succeeded.
        case recorderNotReached(password: String)
        /// WARN: an old `account ... pam_touchauth.so` line (in that file).
        case accountLine(file: String)
        /// WARN: more ways through than the walk tries.
        case tooManyPaths(Int)
        /// OK: the password (nil: none in the stack) lifts a lockout.
        case ok(password: String?)

        public var isFailure: Bool {
            switch self {
            case .fprintdToo, .withoutPassword: true
            default: false
            }
        }
    }

    /// Nil when the service does not authenticate with the module (no finger line in its auth
    /// stack: cron's account line, the authsucc line alone).
    public static func review(service: String, read: (String) -> String?, limit: Int = 4096) -> [Finding]? {
        guard let auth = PamStack(service: service, type: "auth", read: read) else { return nil }
        let lines = auth.lines
        guard let ours = lines.firstIndex(where: { $0.kind == .finger }) else { return nil }
        var findings: [Finding] = []

        if let fprintd = lines.first(where: { $0.moduleName == "pam_fprintd" }) {
            findings.append(.fprintdToo(fprintd))
        }
        let (paths, complete) = auth.paths(limit: limit)
        var granted: [PamLine] = []
        for path in paths where path.succeeded && path.recorderRan && !path.fingerMatched && !path.passwordSucceeded {
            if let line = path.grantor, !granted.contains(line) { granted.append(line) }
        }
        findings += granted.map(Finding.withoutPassword)

        if let unix = lines.firstIndex(where: { $0.moduleName == "pam_unix" }), unix < ours {
            findings.append(.passwordFirst)
        }
        let password = lines[ours...].first { $0.kind == .password }
        if let password {
            let name = password.moduleName
            let lifting = paths.contains { $0.succeeded && !$0.fingerMatched && $0.recorderAfterPassword }
            if !lines.contains(where: { $0.kind == .recorder }) {
                findings.append(.noRecorder(password: name, finger: lines[ours]))
            } else if !lifting {
                if paths.contains(where: { $0.succeeded && !$0.fingerMatched && $0.recorderRan && $0.passwordSucceeded }) {
                    findings.append(.recorderBeforePassword(password: name))
                } else if paths.contains(where: { !$0.succeeded && !$0.fingerMatched && $0.recorderAfterPassword }) {
                    findings.append(.failsAfterRecorder(password: name))
                } else {
                    findings.append(.recorderNotReached(password: name))
                }
            }
        }
        if let old = PamStack(service: service, type: "account", read: read)?.lines.first(where: { $0.moduleName == "pam_touchauth" }) {
            findings.append(.accountLine(file: old.file))
        }
        if !complete { findings.append(.tooManyPaths(limit)) }
        if findings.isEmpty { findings.append(.ok(password: password?.moduleName)) }
        return findings
    }
}
