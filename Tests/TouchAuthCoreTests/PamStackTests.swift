// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

// Stacks as distributions write them, in memory (name -> text).

/// Debian 12's common-auth as pam-auth-update writes it with both of our profiles.
private let debianBoth = """
    auth\t[success=2 abort=die default=ignore]\tpam_touchauth.so
    auth\t[success=1 default=ignore]\tpam_unix.so nullok try_first_pass
    auth\trequisite\t\t\tpam_deny.so
    auth\trequired\t\t\tpam_permit.so
    auth\toptional\tpam_touchauth.so authsucc
    auth\toptional\t\t\tpam_cap.so

    """
/// The same with libpam-fprintd's profile on too (usr/share/pam-configs/fprintd of Debian 12's
/// libpam-fprintd 1.94.2-2: Priority 260, `[success=end default=ignore] pam_fprintd.so
/// max-tries=1 timeout=10 # debug`): pam-auth-update puts it after ours (262).
private let debianFprintd = """
    auth\t[success=3 abort=die default=ignore]\tpam_touchauth.so
    auth\t[success=2 default=ignore]\tpam_fprintd.so max-tries=1 timeout=10 # debug
    auth\t[success=1 default=ignore]\tpam_unix.so nullok try_first_pass
    auth\trequisite\t\t\tpam_deny.so
    auth\trequired\t\t\tpam_permit.so
    auth\toptional\tpam_touchauth.so authsucc
    auth\toptional\t\t\tpam_cap.so

    """
/// Debian's own common-auth, no touchauth in it.
private let debianPlain = """
    auth\t[success=1 default=ignore]\tpam_unix.so nullok
    auth\trequisite\t\t\tpam_deny.so
    auth\trequired\t\t\tpam_permit.so

    """
/// Fedora's system-auth and password-auth from authselect's `sssd` profile with no features
/// (authselect's profiles/sssd/system-auth and password-auth, auth lines), our finger line put
/// before the pam_usertype/pam_localuser conditionals (their `default=1` counts the lines after
/// them: a line between them and pam_unix would be skipped instead of pam_unix).
private let fedoraAuth = """
    auth        required                                     pam_env.so
    auth        required                                     pam_faildelay.so delay=2000000
    auth        [success=done abort=die default=ignore]      pam_touchauth.so
    auth        [default=1 ignore=ignore success=ok]         pam_usertype.so isregular
    auth        [default=1 ignore=ignore success=ok]         pam_localuser.so
    auth        sufficient                                   pam_unix.so nullok
    auth        [default=1 ignore=ignore success=ok]         pam_usertype.so isregular
    auth        sufficient                                   pam_sss.so forward_pass
    auth        required                                     pam_deny.so

    account     required                                     pam_unix.so
    account     sufficient                                   pam_localuser.so
    account     sufficient                                   pam_usertype.so issystem
    account     [default=bad success=ok user_unknown=ignore] pam_sss.so
    account     required                                     pam_permit.so

    """
/// authselect's postlogin: no auth lines.
private let fedoraPostlogin = """
    session     optional                   pam_umask.so silent
    session     [success=1 default=ignore] pam_succeed_if.so service !~ gdm* service !~ su* quiet
    session     [default=1]                pam_lastlog.so nowtmp showfailed
    session     optional                   pam_lastlog.so silent noupdate showfailed

    """
/// util-linux's login and openssh's sshd as Fedora ships them (auth and account), the
/// authsucc line put after the substack.
private let fedoraLogin = """
    #%PAM-1.0
    auth       substack     system-auth
    auth       optional     pam_touchauth.so authsucc
    auth       include      postlogin
    account    required     pam_nologin.so
    account    include      system-auth

    """
private let fedoraSshd = """
    #%PAM-1.0
    auth       substack     password-auth
    auth       optional     pam_touchauth.so authsucc
    auth       include      postlogin
    account    required     pam_sepermit.so
    account    required     pam_nologin.so
    account    include      password-auth

    """
private let fedoraSudo = """
    #%PAM-1.0
    auth       include      system-auth
    auth       optional     pam_touchauth.so authsucc
    account    include      system-auth

    """

private func review(_ files: [String: String], _ service: String, limit: Int = 4096) -> [PamReview.Finding]? {
    PamReview.review(service: service, read: { files[$0] }, limit: limit)
}

private func line(_ file: String, _ number: Int, _ files: [String: String]) -> PamLine {
    PamStack(service: file, read: { files[$0] })!.lines.first { $0.file == file && $0.number == number }!
}

/// doctor's model: stacks parsed as libpam parses them, every way through them walked as
/// libpam's dispatch runs them, and the findings under the authsucc rule (docs/POLICY.md#lockout).
@Suite struct PamReviewTests {
    @Test func debianWithBothProfiles() {
        let files = ["sudo": "@include common-auth\n@include common-account\n", "common-account": "account required pam_unix.so\n",
                     "su": "auth sufficient pam_rootok.so\n@include common-auth\n", "common-auth": debianBoth]
        #expect(review(files, "sudo") == [.ok(password: "pam_unix")])
        #expect(review(files, "su") == [.ok(password: "pam_unix")])
    }

    /// libpam-fprintd's profile next to ours: both finger prompts, and pam_fprintd's match
    /// jumps over pam_unix to the authsucc line. Both FAIL.
    @Test func debianWithFprintdToo() {
        let files = ["login": "@include common-auth\n", "common-auth": debianFprintd]
        let fprintd = line("common-auth", 2, files)
        #expect(fprintd.moduleFile == "pam_fprintd.so")
        #expect(review(files, "login") == [.fprintdToo(fprintd), .withoutPassword(fprintd)])
    }

    /// pam_fprintd and our finger in a service file (not the profiles): still both.
    @Test func fprintdInAServiceFile() {
        let files = ["sudo": "auth [success=done default=ignore] pam_touchauth.so\nauth sufficient pam_fprintd.so\n@include common-auth\nauth optional pam_touchauth.so authsucc\n",
                     "common-auth": debianPlain]
        #expect(review(files, "sudo") == [.fprintdToo(line("sudo", 2, files))])
    }

    /// Fedora: the finger line in system-auth (and password-auth), the authsucc line after
    /// `auth substack system-auth`. A wrong password fails the substack, so the whole stack:
    /// the line notes it and nothing is recorded. A succeeded one (`sufficient pam_unix.so`:
    /// `done` ends the substack only) reaches the line.
    @Test func fedoraSubstacks() {
        let files = ["login": fedoraLogin, "sshd": fedoraSshd, "sudo": fedoraSudo, "system-auth": fedoraAuth,
                     "password-auth": fedoraAuth, "postlogin": fedoraPostlogin]
        #expect(review(files, "login") == [.ok(password: "pam_unix")])
        #expect(review(files, "sshd") == [.ok(password: "pam_unix")])
        // Included, not a substack: `sufficient pam_unix.so` ends the whole stack first.
        #expect(review(files, "sudo") == [.recorderNotReached(password: "pam_unix")])
        var plain = files
        plain["password-auth"] = fedoraAuth.split(separator: "\n").filter { !$0.contains("pam_touchauth") }.joined(separator: "\n")
        #expect(review(plain, "sshd") == nil)
    }

    /// The same stacks walked: every wrong password fails, every path that reaches the
    /// authsucc line and succeeds had a password or our finger succeed.
    @Test func fedoraPaths() {
        let files = ["login": fedoraLogin, "system-auth": fedoraAuth, "postlogin": fedoraPostlogin]
        let (paths, complete) = PamStack(service: "login", read: { files[$0] })!.paths()
        #expect(complete)
        #expect(paths.contains { $0.succeeded && $0.recorderAfterPassword && !$0.fingerMatched })
        for path in paths where !path.passwordSucceeded && !path.fingerMatched {
            #expect(!path.succeeded, "\(path.steps.map { "\($0.line.moduleName)=\($0.result.rawValue)" })")
        }
    }

    /// A substack whose `requisite pam_deny.so` ends it after a wrong password, then
    /// `sufficient pam_permit.so` in the parent before the authsucc line: the substack's
    /// failure stays the stack's (libpam's impression is negative; `sufficient` does not undo
    /// it), so a wrong password records nothing; and after a right one `sufficient pam_permit`
    /// ends the stack before the authsucc line.
    @Test func substackDenyThenSufficientPermit() {
        let inner = "auth [success=done abort=die default=ignore] pam_touchauth.so\nauth [success=1 default=ignore] pam_unix.so\nauth requisite pam_deny.so\nauth required pam_permit.so\n"
        let files = ["login": "auth substack inner\nauth sufficient pam_permit.so\nauth optional pam_touchauth.so authsucc\n", "inner": inner]
        #expect(review(files, "login") == [.recorderNotReached(password: "pam_unix")])
        let (paths, _) = PamStack(service: "login", read: { files[$0] })!.paths()
        let wrong = paths.filter { $0.steps.contains { $0.line.moduleName == "pam_unix" && $0.result == .authErr } }
        #expect(!wrong.isEmpty && wrong.allSatisfy { !$0.succeeded && $0.recorderRan })
    }

    /// A substack that does not fail on a wrong password (no pam_deny after `sufficient
    /// pam_unix.so`), then `required pam_permit.so` in the parent: a wrong password, then
    /// pam_permit, reaches the authsucc line and the stack succeeds. FAIL, naming pam_permit.
    @Test func substackWithoutDenyThenPermit() {
        let inner = "auth [success=done abort=die default=ignore] pam_touchauth.so\nauth sufficient pam_unix.so\n"
        let files = ["login": "auth substack inner\nauth required pam_permit.so\nauth optional pam_touchauth.so authsucc\n", "inner": inner]
        #expect(review(files, "login") == [.withoutPassword(line("login", 2, files))])
    }

    /// The same inner lines included, not a substack: `done` of pam_unix ends the whole
    /// stack, so the authsucc line is never reached after it, and a wrong password reaches
    /// pam_permit and the line: FAIL.
    @Test func includeIsOneScope() {
        let inner = "auth [success=done abort=die default=ignore] pam_touchauth.so\nauth sufficient pam_unix.so\n"
        let files = ["login": "auth include inner\nauth required pam_permit.so\nauth optional pam_touchauth.so authsucc\n", "inner": inner]
        #expect(review(files, "login") == [.withoutPassword(line("login", 2, files)), .recorderNotReached(password: "pam_unix")])
    }

    /// pam_u2f's success jumps over pam_unix to pam_permit and the authsucc line.
    @Test func aJumpFromU2fOverUnix() {
        let auth = "auth [success=3 abort=die default=ignore] pam_touchauth.so\nauth [success=2 default=ignore] pam_u2f.so cue\n"
            + "auth [success=1 default=ignore] pam_unix.so nullok try_first_pass\nauth requisite pam_deny.so\nauth required pam_permit.so\n"
            + "auth optional pam_touchauth.so authsucc\n"
        let files = ["sudo": "@include common-auth\n", "common-auth": auth]
        #expect(review(files, "sudo") == [.withoutPassword(line("common-auth", 2, files))])
    }

    /// pam_sss with a smartcard option is not a password: Fedora's with-smartcard line.
    @Test func aSmartcardIsNotAPassword() {
        let auth = "auth [success=done abort=die default=ignore] pam_touchauth.so\n"
            + "auth [success=done authinfo_unavail=ignore user_unknown=ignore ignore=ignore default=die] pam_sss.so try_cert_auth\n"
            + "auth sufficient pam_unix.so nullok\nauth required pam_deny.so\n"
        let files = ["login": "auth substack system-auth\nauth optional pam_touchauth.so authsucc\n", "system-auth": auth]
        #expect(review(files, "login") == [.withoutPassword(line("system-auth", 2, files))])
    }

    /// The mode word anywhere among the arguments, as pam_faillock's.
    @Test func theWordAnywhere() {
        let files = ["sudo": "auth [success=done default=ignore] pam_touchauth.so\n@include common-auth\nauth optional pam_touchauth.so debug authsucc\n",
                     "common-auth": debianPlain]
        #expect(review(files, "sudo") == [.ok(password: "pam_unix")])
        #expect(line("sudo", 3, files).isRecorder)
        #expect(!line("sudo", 1, files).isRecorder)
    }

    /// The rule changed: a line after `required pam_unix.so` runs after a wrong password too,
    /// but the stack fails then, so nothing is recorded.
    @Test func afterRequiredUnix() {
        let files = ["login": "auth [success=done default=ignore] pam_touchauth.so\nauth required pam_unix.so\nauth optional pam_touchauth.so authsucc\n"]
        #expect(review(files, "login") == [.ok(password: "pam_unix")])
    }

    @Test func theRecorderBeforeThePassword() {
        let files = ["login": "auth [success=done default=ignore] pam_touchauth.so\nauth optional pam_touchauth.so authsucc\n@include common-auth\n",
                     "common-auth": debianPlain]
        #expect(review(files, "login") == [.recorderBeforePassword(password: "pam_unix")])
    }

    @Test func theStackFailsAfterTheRecorder() {
        let files = ["login": "auth [success=done default=ignore] pam_touchauth.so\nauth requisite pam_unix.so\nauth optional pam_touchauth.so authsucc\nauth required pam_deny.so\n"]
        #expect(review(files, "login") == [.failsAfterRecorder(password: "pam_unix")])
    }

    /// `sufficient pam_faillock.so authsucc` ends the stack before the authsucc line after it.
    @Test func faillockAuthsuccEndsTheStack() {
        let auth = "auth requisite pam_faillock.so preauth\nauth [success=2 abort=die default=ignore] pam_touchauth.so\n"
            + "auth [success=1 default=ignore] pam_unix.so\nauth [default=die] pam_faillock.so authfail\n"
            + "auth sufficient pam_faillock.so authsucc\nauth requisite pam_deny.so\nauth required pam_permit.so\n"
        let files = ["sudo": "@include common-auth\nauth optional pam_touchauth.so authsucc\n", "common-auth": auth]
        #expect(review(files, "sudo") == [.recorderNotReached(password: "pam_unix")])
    }

    @Test func notAUser() {
        #expect(review(["cron": "@include common-account\n", "common-account": "account required pam_unix.so\n"], "cron") == nil)
        #expect(review(["sudo": "@include common-auth\n", "common-auth": debianPlain + "auth optional pam_touchauth.so authsucc\n"], "sudo") == nil)
        #expect(review(["sudo": "auth sufficient pam_fprintd.so\n@include common-auth\n", "common-auth": debianPlain], "sudo") == nil)
        #expect(review([:], "sudo") == nil)
    }

    @Test func tooManyPaths() {
        let files = ["login": "auth [success=done default=ignore] pam_touchauth.so\n" + String(repeating: "auth optional pam_unix.so\n", count: 4)
                     + "auth optional pam_touchauth.so authsucc\n"]
        #expect(review(files, "login") == [.ok(password: "pam_unix")])
        #expect(review(files, "login", limit: 8) == [.tooManyPaths(8)])
        #expect(PamStack(service: "login", read: { files[$0] })!.paths(limit: 100).paths.count == 17)
    }
}

/// libpam's dispatch on chosen results (pam_dispatch.c): the cases where a substack differs from
/// an include. Checked against real libpam with pam_debug.so (auth=VALUE) under pamtester.
@Suite struct PamDispatchTests {
    /// The one path where each module returns what `results` maps its name to (pam_debug's
    /// argument here: `pam_debug.so auth=auth_err` stands for a module returning that).
    static func walk(_ files: [String: String]) -> PamPath {
        let stack = PamStack(service: "s", read: { files[$0] })!
        let all = stack.paths().paths
        let wanted = all.filter { path in
            path.steps.allSatisfy { step in
                guard let arg = step.line.args.first(where: { $0.hasPrefix("auth=") }) else { return true }
                return step.result.rawValue == arg.dropFirst(5)
            }
        }
        #expect(wanted.count == 1)
        return wanted.first ?? all[0]
    }

    static func ran(_ path: PamPath) -> [String] { path.steps.map { "\($0.line.file):\($0.line.number)" } }

    @Test func dieEndsOnlyTheSubstack() {
        let path = Self.walk(["s": "auth substack x\nauth optional pam_touchauth.so authsucc\n",
                              "x": "auth requisite pam_unix.so auth=auth_err\nauth required pam_permit.so\n"])
        #expect(Self.ran(path) == ["x:1", "s:2"])
        #expect(!path.succeeded && path.status == .authErr)
    }

    @Test func dieInAnIncludeEndsTheStack() {
        let path = Self.walk(["s": "auth include x\nauth optional pam_touchauth.so authsucc\n",
                              "x": "auth requisite pam_unix.so auth=auth_err\nauth required pam_permit.so\n"])
        #expect(Self.ran(path) == ["x:1"])
        #expect(!path.succeeded)
    }

    @Test func doneEndsOnlyTheSubstackAndTheParentGoesOn() {
        let path = Self.walk(["s": "auth substack x\nauth required pam_deny.so\n",
                              "x": "auth sufficient pam_unix.so auth=success\nauth required pam_deny.so\n"])
        #expect(Self.ran(path) == ["x:1", "s:2"])
        #expect(!path.succeeded && path.status == .authErr)
    }

    @Test func aFailedSubstackStaysFailed() {
        let path = Self.walk(["s": "auth substack x\nauth sufficient pam_permit.so\n",
                              "x": "auth required pam_unix.so auth=auth_err\n"])
        #expect(Self.ran(path) == ["x:1", "s:2"])
        #expect(!path.succeeded)
    }

    @Test func aJumpCountsASubstackAsOneLine() {
        let path = Self.walk(["s": "auth [success=1 default=ignore] pam_unix.so auth=success\nauth substack x\nauth required pam_permit.so\n",
                              "x": "auth required pam_deny.so\nauth required pam_deny.so\n"])
        #expect(Self.ran(path) == ["s:1", "s:3"])
        #expect(path.succeeded)
    }

    @Test func aJumpPastTheSubstacksEndFailsItAndTheParentGoesOn() {
        let path = Self.walk(["s": "auth substack x\nauth optional pam_touchauth.so authsucc\n",
                              "x": "auth [success=2 default=ignore] pam_unix.so auth=success\nauth required pam_deny.so\n"])
        #expect(Self.ran(path) == ["x:1", "s:2"])
        #expect(!path.succeeded && path.status == .permDenied)
    }

    @Test func aJumpThroughAnIncludeCountsItsLines() {
        let path = Self.walk(["s": "auth [success=2 default=ignore] pam_unix.so auth=success\nauth include x\nauth required pam_permit.so\n",
                              "x": "auth required pam_deny.so\nauth required pam_deny.so\n"])
        #expect(Self.ran(path) == ["s:1", "s:3"])
        #expect(path.succeeded)
    }

    @Test func resetGoesBackToTheSubstacksStart() {
        let path = Self.walk(["s": "auth required pam_permit.so\nauth substack x\n",
                              "x": "auth required pam_unix.so auth=auth_err\nauth [default=reset] pam_deny.so\n"])
        #expect(path.succeeded)
        let failed = Self.walk(["s": "auth required pam_unix.so auth=auth_err\nauth substack x\nauth [default=reset] pam_deny.so\n",
                                "x": "auth required pam_permit.so\n"])
        #expect(!failed.succeeded && failed.status == .permDenied)  // the stack's start: undefined
    }

    @Test func aMissingFileFailsTheStack() {
        let path = Self.walk(["s": "auth optional pam_permit.so\nauth include nowhere\n"])
        #expect(!path.succeeded && path.status == .permDenied)
        let sub = PamStack(service: "s", read: { ["s": "auth substack nowhere\n"][$0] })!
        #expect(sub.items.count == 2)  // the substack, then a failing line
    }

    @Test func okAfterIgnoreOnlyIsNotASuccess() {
        let path = Self.walk(["s": "auth optional pam_env.so\n"])
        #expect(!path.succeeded && path.status == .permDenied)
    }
}

/// The parser: libpam's lines, words and controls.
@Suite struct PamParseTests {
    @Test func linesCommentsAndContinuations() {
        let text = "# a comment\n\nauth required \\\n  # between\n\n pam_unix.so nullok # a comment\nauth  [success=1 \\] default=ignore]  pam_x.so [a b\\]c] d\n-auth optional pam_y.so\nAUTH Optional pam_z.so\nsession required pam_w.so\n"
        let lines = PamStack(service: "s", read: { _ in text })!.lines
        #expect(lines.map(\.number) == [3, 7, 8, 9])
        #expect(lines.map(\.moduleName) == ["pam_unix", "pam_x", "pam_y", "pam_z"])
        #expect(lines[0].args == ["nullok"])
        #expect(lines[1].control == "success=1 ] default=ignore")
        #expect(lines[1].args == ["a b]c", "d"])
        #expect(lines[3].action(for: .authErr) == .ignore)
    }

    @Test func brokenLinesFail() {
        let text = "auht sufficient pam_unix.so\nauth required\nauth\n"
        let lines = PamStack(service: "s", read: { _ in text })!.lines
        #expect(lines.map(\.broken) == [true, true, true])
        #expect(lines.map { $0.action(for: .permDenied) } == [.ignore, .bad, .bad])
    }

    @Test func moduleNames() {
        let line = PamLine(file: "f", number: 1, control: "required", module: "/lib/security/pam_unix.so", args: [])
        #expect(line.moduleName == "pam_unix")
        #expect(line.moduleFile == "pam_unix.so")
    }

    /// The control tables (pam_handlers.c) and `[value=action]` (`_pam_parse_control`).
    @Test(arguments: [
        ("required", PamResult.authErr, PamAction.bad), ("required", .ignore, .ignore), ("requisite", .authErr, .die),
        ("sufficient", .success, .done), ("sufficient", .authErr, .ignore), ("optional", .authErr, .ignore),
        ("Required", .authErr, .bad), ("success=2 default=ignore", .success, .jump(2)),
        ("success=2 default=ignore", .authErr, .ignore), ("success=ok", .authErr, .bad),
        // Names and actions are case-sensitive: a syntax error makes every value bad.
        ("Success=End Default=Die", .authErr, .bad), ("Success=End Default=Die", .success, .bad),
        ("default=die success=ok", .success, .ok), ("default=ignore default=die", .authErr, .ignore),
        (" success = done  new_authtok_reqd=done default=ignore ", .success, .done), ("success=0", .success, .bad),
        ("success=reset", .success, .reset), ("authinfo_unavail=ignore default=die", .authinfoUnavail, .ignore),
        ("", .success, .bad),
    ])
    func controls(_ control: String, _ result: PamResult, _ action: PamAction) {
        let line = PamLine(file: "x", number: 1, control: control, module: "pam_x.so", args: [])
        #expect(line.action(for: result) == action)
    }
}
