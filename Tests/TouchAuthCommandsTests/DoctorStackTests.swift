import Glibc
import Testing
@testable import TouchAuthCommands

/// `touchauth doctor`'s reading of /etc/pam.d: includes expanded, order and account line judged.
/// Real files in a temporary directory; they must be root's (System.readTrustedFile), so these
/// run as root, as scripts/test.sh does.
@Suite(.enabled(if: geteuid() == 0, "doctor reads only root-owned PAM files"))
struct DoctorStackTests {
    /// Writes the services into a fresh directory and returns doctor's pam notes for it.
    func notes(_ services: [String: String]) -> [(Doctor.Level, String)] {
        var template = Array("/tmp/touchauth-doctor-test.XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer {
            for name in services.keys { unlink("\(dir)/\(name)") }
            rmdir(dir)
        }
        for (name, text) in services {
            let fd = open("\(dir)/\(name)", O_WRONLY | O_CREAT | O_EXCL, 0o644)
            precondition(fd >= 0)
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        var out: [(Doctor.Level, String)] = []
        Doctor.pamStacks(dir) { level, _, text in
            out.append((level, text.hasPrefix(dir + "/") ? String(text.dropFirst(dir.count + 1)) : text))
        }
        return out
    }

    /// What pam-auth-update writes: the lines in common-*, the services include them.
    @Test func aGoodStackThroughIncludes() {
        let out = notes([
            "sudo": "#%PAM-1.0\n@include common-auth\n@include common-account\n",
            "su": "auth sufficient pam_rootok.so\n@include common-auth\n@include common-account\n",
            "cron": "@include common-account\n",
            "common-auth": "auth [success=done abort=die default=ignore] pam_touchauth.so\nauth [success=1 default=ignore] pam_unix.so try_first_pass\nauth requisite pam_deny.so\n",
            "common-account": "account required pam_unix.so\naccount optional pam_touchauth.so\n",
        ])
        // cron has only the account line: not a user, nothing to say.
        #expect(out.map(\.1) == [
            "su: touchauth before the password (pam_unix), account line present",
            "sudo: touchauth before the password (pam_unix), account line present",
        ])
        #expect(out.map(\.0) == [.ok, .ok])
    }

    @Test func passwordFirstIsAWarning() {
        let out = notes([
            "su": "auth required pam_unix.so\nauth sufficient pam_touchauth.so\naccount optional pam_touchauth.so\n"
        ])
        #expect(out.count == 1)
        #expect(out[0].0 == .warn)
        #expect(out[0].1.contains("pam_unix comes before pam_touchauth"))
    }

    @Test func noAccountLineIsAWarning() {
        let out = notes(["login": "auth [success=done default=ignore] pam_touchauth.so\nauth required pam_unix.so\n"])
        #expect(out.map(\.0) == [.warn])
        #expect(out[0].1.contains("no 'account ... pam_touchauth.so' line"))
    }

    @Test func substackAndBracketsWithSpaces() {
        let out = notes([
            "polkit-1": "auth substack fp\naccount include fp\n",
            "fp": "auth [success=done abort=die  default=ignore] pam_touchauth.so reason=x\nauth required pam_unix.so\naccount optional pam_touchauth.so\n",
        ])
        // Both authenticate with it: fp itself, polkit-1 through its substack.
        #expect(out.map(\.1) == [
            "fp: touchauth before the password (pam_unix), account line present",
            "polkit-1: touchauth before the password (pam_unix), account line present",
        ])
    }

    @Test func nobodyUsesIt() {
        let out = notes(["other": "auth required pam_deny.so\n"])
        #expect(out.map(\.0) == [.warn])
        #expect(out[0].1.contains("no service in"))
    }
}
