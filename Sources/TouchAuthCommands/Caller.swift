// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// Who runs a command, and whom it may act on.
///
/// The user a command acts on by default is the person at the keyboard: the real uid, or, when
/// root runs it through sudo, sudo's `SUDO_UID` (`sudo touchauth enroll` enrolls you, as
/// `fprintd-enroll` does). sudo's variables are read before the environment is emptied, and
/// only when the real uid is root: a user who sets `SUDO_UID` gains nothing, since a non-root
/// caller may only ever act on its own uid.
enum Caller {
    nonisolated(unsafe) private(set) static var defaultUID: uid_t = getuid()

    /// Called before `Environment.sanitize()`.
    static func capture() {
        defaultUID = getuid()
        guard defaultUID == 0 else { return }
        if let raw = getenv("SUDO_UID"), let uid = uid_t(String(cString: raw)) {
            defaultUID = uid
        } else if let raw = getenv("SUDO_USER"), let (_, uid) = Accounts.lookUp(String(cString: raw)) {
            defaultUID = uid
        }
    }

    static var isRoot: Bool { getuid() == 0 }

    /// The user named by `--user`, or the invoking user. A caller that is not root may name
    /// only itself (`denied` says what it was trying: "only root may enroll another user").
    static func target(_ options: Options, _ command: String, denied: LocalizedText) throws(CommandError) -> (UserName, uid_t) {
        let name: String
        if let given = options.user {
            name = given
        } else {
            guard let own = Accounts.name(of: defaultUID) else {
                throw .failed(tr("\(command): uid \(defaultUID) has no account name (use --user)"))
            }
            name = own
        }
        guard let (user, uid) = Accounts.lookUp(name) else { throw .failed(tr("\(command): no such user '\(name)'")) }
        guard isRoot || uid == getuid() else {
            throw .failed("\(command): \(tr(denied)) (\(user))")
        }
        return (user, uid)
    }

    /// Commands that write root's files (prints, state) need root's privileges.
    static func requireRoot(_ command: String) throws(CommandError) {
        guard geteuid() == 0 else {
            throw .failed(tr("\(command): must be run as root (try: sudo touchauth \(command))"))
        }
    }
}
