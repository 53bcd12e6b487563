// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore

/// The password database, read with the reentrant calls.
package enum Accounts {
    /// The account's uid, if the name is well-formed and the account exists.
    package static func lookUp(_ name: String) -> (UserName, uid_t)? {
        guard let user = UserName(name) else { return nil }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return (user, entry.pw_uid)
    }

    package static func name(of uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return String(cString: entry.pw_name)
    }
}
