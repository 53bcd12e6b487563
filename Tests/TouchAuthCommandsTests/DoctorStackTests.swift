// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import TouchAuthCommands
import TouchAuthPlatform

/// Makes a fresh directory from a template, fills it with files (name -> text, subdirectories
/// made on the way), runs `body` with its path, and removes it.
private func withFiles<T>(_ files: [String: String], _ body: (String) -> T) -> T {
    var template = Array("/tmp/touchauth-doctor-test.XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    defer {
        for name in files.keys { unlink("\(dir)/\(name)") }
        // Subdirectories, deepest first.
        var dirs = Set<String>()
        for name in files.keys {
            var parts = name.split(separator: "/").dropLast()
            while !parts.isEmpty { dirs.insert(parts.joined(separator: "/")); parts = parts.dropLast() }
        }
        for sub in dirs.sorted(by: { $0.count > $1.count }) { rmdir("\(dir)/\(sub)") }
        rmdir(dir)
    }
    for (name, text) in files {
        var prefix = dir
        for part in name.split(separator: "/").dropLast() {
            prefix += "/\(part)"
            mkdir(prefix, 0o755)
        }
        let fd = open("\(dir)/\(name)", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        precondition(fd >= 0)
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }
    return body(dir)
}

/// What pam-auth-update writes into common-auth with both profiles on (checked on Debian 12).
private let commonAuth = """
    auth\t[success=2 abort=die default=ignore]\tpam_touchauth.so
    auth\t[success=1 default=ignore]\tpam_unix.so nullok try_first_pass
    auth\trequisite\t\t\tpam_deny.so
    auth\trequired\t\t\tpam_permit.so
    auth\toptional\tpam_touchauth.so authsucc
    auth\toptional\t\t\tpam_cap.so

    """
/// The same with the finger profile alone (no touchauth-unlock).
private let commonAuthNoRecorder = """
    auth\t[success=2 abort=die default=ignore]\tpam_touchauth.so
    auth\t[success=1 default=ignore]\tpam_unix.so nullok try_first_pass
    auth\trequisite\t\t\tpam_deny.so
    auth\trequired\t\t\tpam_permit.so

    """
/// The same with libpam-fprintd's profile on too (Debian 12's usr/share/pam-configs/fprintd:
/// Priority 260, after ours).
private let commonAuthFprintd = """
    auth\t[success=3 abort=die default=ignore]\tpam_touchauth.so
    auth\t[success=2 default=ignore]\tpam_fprintd.so max-tries=1 timeout=10 # debug
    auth\t[success=1 default=ignore]\tpam_unix.so nullok try_first_pass
    auth\trequisite\t\t\tpam_deny.so
    auth\trequired\t\t\tpam_permit.so
    auth\toptional\tpam_touchauth.so authsucc
    auth\toptional\t\t\tpam_cap.so

    """
/// Fedora's system-auth (authselect's sssd profile, its auth lines) with the finger line.
private let fedoraSystemAuth = """
    auth        required                                     pam_env.so
    auth        required                                     pam_faildelay.so delay=2000000
    auth        [success=done abort=die default=ignore]      pam_touchauth.so
    auth        [default=1 ignore=ignore success=ok]         pam_usertype.so isregular
    auth        [default=1 ignore=ignore success=ok]         pam_localuser.so
    auth        sufficient                                   pam_unix.so nullok
    auth        [default=1 ignore=ignore success=ok]         pam_usertype.so isregular
    auth        sufficient                                   pam_sss.so forward_pass
    auth        required                                     pam_deny.so

    """
/// Debian's own common-auth, no touchauth in it.
private let debianCommonAuth = """
    auth\t[success=1 default=ignore]\tpam_unix.so nullok
    auth\trequisite\t\t\tpam_deny.so
    auth\trequired\t\t\tpam_permit.so

    """
private let finger = "auth [success=done abort=die default=ignore] pam_touchauth.so [reason=authenticate to run a command as root]\n"
private let recorder = "auth optional pam_touchauth.so authsucc\n"

/// `touchauth doctor`'s reading of /etc/pam.d: includes expanded, the order, the authsucc line
/// (after the password, reached only when it succeeded) and old account lines judged.
/// Real files in a temporary directory; they must be root's (Files.readTrustedFile), so these
/// run as root, as scripts/test.sh does.
@Suite(.enabled(if: geteuid() == 0, "doctor reads only root-owned PAM files"))
struct DoctorStackTests {
    struct Case: CustomTestStringConvertible {
        let name: String
        let services: [String: String]
        /// Every pam note, in order: level, the service (or "" for none), words the text holds.
        let expected: [(Doctor.Level, String, String)]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "pam-auth-update with both profiles: the users through their includes",
             services: [
                "sudo": "#%PAM-1.0\n@include common-auth\n@include common-account\n",
                "su": "auth sufficient pam_rootok.so\n@include common-auth\n@include common-account\n",
                "cron": "@include common-account\n",  // no auth: not a user, nothing to say
                "common-auth": commonAuth,
                "common-account": "account [success=1 new_authtok_reqd=done default=ignore] pam_unix.so\naccount requisite pam_deny.so\naccount required pam_permit.so\n",
             ],
             expected: [
                (.ok, "su", "touchauth before the password (pam_unix), authsucc after it: a succeeded password lifts a lockout"),
                (.ok, "sudo", "touchauth before the password (pam_unix), authsucc after it: a succeeded password lifts a lockout"),
             ]),
        Case(name: "the old profile: no recorder, the account line in common-account",
             services: [
                "sudo": "@include common-auth\n@include common-account\n",
                "common-auth": commonAuthNoRecorder,
                "common-account": "account [success=1 default=ignore] pam_unix.so\naccount requisite pam_deny.so\naccount required pam_permit.so\naccount optional pam_touchauth.so\n",
             ],
             expected: [
                (.warn, "sudo", "no 'auth optional pam_touchauth.so authsucc' line after pam_unix: a password will not lift a fingerprint lockout (only touchauth unlock does); pam-auth-update --enable touchauth-unlock"),
                (.warn, "sudo", "'account ... pam_touchauth.so' (in common-account) no longer clears anything: replace it with 'auth optional pam_touchauth.so authsucc' right after @include common-auth (pam-auth-update --package applies the new profiles)"),
             ]),
        Case(name: "a service file as examples/pam.d/sudo",
             services: ["sudo": finger + "@include common-auth\n" + recorder + "@include common-account\n",
                        "common-auth": debianCommonAuth, "common-account": "account required pam_unix.so\n"],
             expected: [(.ok, "sudo", "touchauth before the password (pam_unix), authsucc after it")]),
        Case(name: "a service file without the recorder",
             services: ["sudo": finger + "@include common-auth\n", "common-auth": debianCommonAuth],
             expected: [(.warn, "sudo", "a password will not lift a fingerprint lockout (only touchauth unlock does); add it right after @include common-auth")]),
        Case(name: "an old account line in a service file",
             services: ["su": finger + "@include common-auth\n" + recorder + "account optional pam_touchauth.so\n",
                        "common-auth": debianCommonAuth],
             expected: [(.warn, "su", "'account ... pam_touchauth.so' (in su) no longer clears anything: replace it with 'auth optional pam_touchauth.so authsucc' right after @include common-auth")]),
        // The rule changed (issue 20): the authsucc line records only when the whole stack
        // succeeds, so reaching it after a wrong password records nothing.
        Case(name: "after 'required pam_unix.so' the recorder runs after a wrong password too, and the stack fails then",
             services: ["login": finger + "auth required pam_unix.so\n" + recorder],
             expected: [(.ok, "login", "touchauth before the password (pam_unix), authsucc after it: a succeeded password lifts a lockout")]),
        Case(name: "a recorder before the password sees only a password typed at the fingerprint prompt",
             services: ["login": finger + recorder + "@include common-auth\n", "common-auth": debianCommonAuth],
             expected: [(.warn, "login", "the authsucc line runs before pam_unix: a password pam_unix asks for is not recorded, only one typed at the fingerprint prompt")]),
        Case(name: "the stack fails after the recorder",
             services: ["login": finger + "auth requisite pam_unix.so\n" + recorder + "auth required pam_deny.so\n"],
             expected: [(.warn, "login", "the stack fails after the authsucc line even when pam_unix succeeded")]),
        Case(name: "pam-auth-update with libpam-fprintd's profile too: two fingers, and pam_fprintd's match reaches the recorder",
             services: ["login": "@include common-auth\n", "common-auth": commonAuthFprintd],
             expected: [
                (.fail, "login", "pam_touchauth.so and pam_fprintd.so (common-auth line 2) both ask for a finger: ours or pam_fprintd, not both (two prompts, six tries); pam-auth-update --disable fprintd (or remove the line): touchauth uses the prints fprintd enrolled (the same /var/lib/fprint)"),
                (.fail, "login", "a success of pam_fprintd.so (common-auth line 2) reaches the authsucc line without a password: a fingerprint would lift the lockout"),
             ]),
        Case(name: "a jump from pam_u2f over pam_unix",
             services: ["sudo": "@include common-auth\n",
                        "common-auth": commonAuthFprintd.replacingFprintd(with: "auth [success=2 default=ignore] pam_u2f.so cue")],
             expected: [(.fail, "sudo", "a success of pam_u2f.so (common-auth line 2) reaches the authsucc line without a password: a security key would lift the lockout")]),
        Case(name: "Fedora: the finger in system-auth, the recorder after 'auth substack system-auth'",
             services: ["login": "auth substack system-auth\n" + recorder + "auth include postlogin\naccount include system-auth\n",
                        "system-auth": fedoraSystemAuth, "postlogin": "session optional pam_umask.so silent\n"],
             // system-auth is authselect's fragment: judged in login, not on its own.
             expected: [(.ok, "login", "touchauth before the password (pam_unix), authsucc after it: a succeeded password lifts a lockout")]),
        Case(name: "a substack that does not fail on a wrong password, then 'required pam_permit.so'",
             services: ["login": "auth substack fp\nauth required pam_permit.so\n" + recorder, "fp": finger + "auth sufficient pam_unix.so\n"],
             expected: [(.warn, "fp", "no 'auth optional pam_touchauth.so authsucc' line after pam_unix"),
                        (.fail, "login", "a success of pam_permit.so (login line 2) reaches the authsucc line without a password: a password that was typed but did not succeed would lift the lockout")]),
        Case(name: "the mode word not first",
             services: ["sudo": finger + "@include common-auth\nauth optional pam_touchauth.so debug authsucc\n", "common-auth": debianCommonAuth],
             expected: [(.ok, "sudo", "touchauth before the password (pam_unix), authsucc after it")]),
        Case(name: "after 'sufficient pam_unix.so' the recorder is reached only when the password failed",
             services: ["su": finger + "auth sufficient pam_unix.so\n" + recorder + "auth required pam_deny.so\n"],
             expected: [(.warn, "su", "the authsucc line is never reached after pam_unix succeeded")]),
        Case(name: "requisite pam_unix.so gates the recorder",
             services: ["su": finger + "auth requisite pam_unix.so\n" + recorder],
             expected: [(.ok, "su", "authsucc after it")]),
        Case(name: "another password module (sssd) in the Primary block",
             services: ["sudo": "@include common-auth\n",
                        "common-auth": "auth [success=3 abort=die default=ignore] pam_touchauth.so\nauth [success=2 default=ignore] pam_unix.so nullok\nauth [success=1 default=ignore] pam_sss.so use_first_pass\nauth requisite pam_deny.so\nauth required pam_permit.so\nauth optional pam_touchauth.so authsucc\n"],
             expected: [(.ok, "sudo", "touchauth before the password (pam_unix), authsucc after it")]),
        Case(name: "the password first",
             services: ["su": "auth required pam_unix.so\nauth sufficient pam_touchauth.so\n" + recorder],
             expected: [(.warn, "su", "pam_unix comes before pam_touchauth: the password is asked first")]),
        Case(name: "no password in the stack (gdm-fingerprint)",
             services: ["gdm-fingerprint": "auth requisite pam_nologin.so\nauth required pam_touchauth.so timeout=600 fallback_title=\n@include common-account\n",
                        "common-account": "account required pam_unix.so\n"],
             expected: [(.ok, "gdm-fingerprint", "touchauth, no password in this stack")]),
        Case(name: "substack, and brackets with spaces",
             services: [
                "polkit-1": "auth substack fp\naccount include fp\n",
                "fp": "auth [success=done abort=die  default=ignore] pam_touchauth.so reason=x\nauth requisite pam_unix.so\n" + recorder,
             ],
             // Both authenticate with it: fp itself, polkit-1 through its substack.
             expected: [(.ok, "fp", "touchauth before the password (pam_unix), authsucc after it"),
                        (.ok, "polkit-1", "touchauth before the password (pam_unix), authsucc after it")]),
        Case(name: "the recorder alone (the finger profile off) is no user",
             services: ["sudo": "@include common-auth\n",
                        "common-auth": debianCommonAuth.replacingPermit(with: "auth required pam_permit.so\n" + recorder)],
             expected: [(.warn, "", "no service in")]),
        Case(name: "nobody uses it",
             services: ["other": "auth required pam_deny.so\n"],
             expected: [(.warn, "", "no service in")]),
    ]

    @Test(arguments: cases) func stacks(_ test: Case) {
        let out: [(Doctor.Level, String)] = withFiles(test.services) { dir in
            var out: [(Doctor.Level, String)] = []
            Doctor.pamStacks(dir) { level, check, text in
                #expect(check == "pam")
                out.append((level, text.hasPrefix(dir + "/") ? String(text.dropFirst(dir.count + 1)) : text))
            }
            return out
        }
        #expect(out.count == test.expected.count, "\(out)")
        for ((level, text), (wantLevel, service, words)) in zip(out, test.expected) {
            #expect(level == wantLevel, "\(text)")
            if !service.isEmpty { #expect(text.hasPrefix(service + ": "), "\(text)") }
            #expect(text.contains(words), "\(text)")
        }
    }

}

/// Which presence signals doctor reports: logind is running when seat0 exists.
struct DoctorPresenceTests {
    static let counts = "logind: not running: a terminal counts (terminal_without_logind = yes): remote logins and terminal rules only"
    static let doesNot = "logind: not running: a terminal does not count (terminal_without_logind = no): sudo, su and login ask for the password; display managers and screen lockers only"

    @Test(arguments: [
        (["run/systemd/seats/seat0": ""], false, "logind: running, sessions are checked"),
        (["run/systemd/seats/seat0": ""], true, "logind: running, sessions are checked"),
        (["run/systemd/seats/.keep": ""], false, doesNot),
        (["run/systemd/sessions/1": ""], false, doesNot),
        ([:], false, doesNot),
        ([:], true, counts),
    ])
    func logind(_ files: [String: String], _ terminalWithoutLogind: Bool, _ expected: String) {
        let out: [(Doctor.Level, String, String)] = withFiles(files) { root in
            var out: [(Doctor.Level, String, String)] = []
            Doctor.presence(root: root, terminalWithoutLogind: terminalWithoutLogind) { out.append(($0, $1, $2)) }
            return out
        }
        #expect(out.count == 1)
        #expect(out.first?.0 == .ok)
        #expect(out.first?.1 == "presence")
        #expect(out.first?.2 == expected)
    }
}

extension String {
    fileprivate func replacingFprintd(with text: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.contains("pam_fprintd.so") ? text : String($0) }.joined(separator: "\n")
    }
    fileprivate func replacingPermit(with text: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("pam_permit.so") ? String(text.dropLast()) : String($0) }.joined(separator: "\n")
    }
}
