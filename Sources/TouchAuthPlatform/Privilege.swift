// SPDX-License-Identifier: Apache-2.0
import CConfig
import Glibc
import TouchAuthCore

/// Who started the helper, and what that caller may ask (SECURITY.md#restricted-mode).
///
/// The module runs the helper with real uid 0 whenever it can (sudo, su, login, GDM: it calls
/// `setuid(0)` before `execve`, as pam_unix does for `unix_chkpwd`). A screen locker runs PAM as
/// the user: then only the helper's own setuid bit makes it root, and the real uid is the user.
/// Anyone can start a setuid program with any argv, stdin and environment, so a non-root real
/// uid gets `unix_chkpwd`'s deal: verify your own prints with the administrator's settings,
/// and nothing else.
package enum Privilege {
    /// The real uid when it is not root: the caller is then restricted (`restrict`).
    package static var restrictedCaller: uid_t? {
        let uid = getuid()
        return uid == 0 ? nil : uid
    }

    /// Called first thing after the environment is emptied. A setuid run (real uid not root,
    /// effective uid root) keeps root only for exactly `touchauth pam-verify` with stdin not a
    /// terminal; `pam-account` (it clears the lockout) is refused; anything else runs with the
    /// privileges dropped for good, as a plain user's command.
    package static func restrict(_ arguments: [String]) {
        let uid = getuid()
        guard uid != 0 else { return }
        if arguments.first == "pam-account" {
            Syslog.log(LOG_ERR, "pam-account refused: real uid \(uid) is not root")
            Files.write(tr("touchauth: pam-account: only root may clear a lockout") + "\n", to: 2)
            exit(2)
        }
        guard geteuid() == 0 else { return }  // no privileges to guard
        if arguments == ["pam-verify"] {
            // The module always gives a pipe; a terminal means a person typing a forged request.
            if isatty(0) != 0 {
                Syslog.log(LOG_ERR, "pam-verify refused for uid \(uid): stdin is a terminal")
                Files.write(tr("touchauth: pam-verify: stdin is a terminal") + "\n", to: 2)
                exit(2)
            }
            return
        }
        guard setgid(getgid()) == 0, setuid(uid) == 0, geteuid() == uid, setuid(0) != 0 else {
            Files.write(tr("touchauth: cannot drop privileges") + "\n", to: 2)
            exit(1)
        }
    }

    /// The module arguments of a restricted caller's request that are applied; the others are
    /// logged and ignored (`config=`, `print_dir`, `state_dir`, `helper`, `virtual_device*`, the
    /// lockout and trust keys, `debug`): the root-owned default config file decides those.
    package static func filter(_ arguments: [String], caller: uid_t) -> [String] {
        filter(arguments) { Syslog.log(LOG_WARNING, "uid \(caller): module argument \($0) ignored (caller is not root)") }
    }

    /// The same, telling `ignored` each dropped key. The parser decides (`config_caller_may_pass`,
    /// pam/config_parse.c): the key as it reads it (blanks trimmed, bare `debug`), and the key
    /// table's column of the keys a caller may pass, those of the prompt (`reason`,
    /// `fallback_title`, `timeout`, `max_tries`): never what is checked, where prints and state
    /// live, which sensor is used, or the lockout. What is not `key=value` passes, for the
    /// loader to refuse as it would from root.
    package static func filter(_ arguments: [String], ignored: (String) -> Void) -> [String] {
        arguments.filter { argument in
            var key = [CChar](repeating: 0, count: Int(CONFIG_KEY_MAX) + 1)
            if config_caller_may_pass(argument, &key) != 0 { return true }
            ignored(Config.string(key))
            return false
        }
    }

    /// A restricted caller may only ever verify itself: the name must be the real uid's own.
    package static func mayVerify(_ name: String, caller: uid_t) -> Bool {
        guard let own = Accounts.name(of: caller), own == name else {
            Syslog.log(LOG_ERR, "uid \(caller) asked to verify another user; refused")
            return false
        }
        return true
    }
}
