// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth unlock USER` (root): clears the strikes and the lockout, and replaces a corrupt or
/// unsafe state file. The trust rules still stand: after a reboot the password comes first.
enum Unlock {
    static func run(_ options: Options) throws(CommandError) {
        guard geteuid() == 0 else { throw .failed(tr("unlock: must be run as root")) }
        guard let name = options.user else { throw .usage(tr("unlock: which user? (touchauth unlock USER)")) }
        guard let (user, uid) = Accounts.lookUp(name) else { throw .failed(tr("unlock: no such user '\(name)'")) }
        let config = try Config.load(configPath: options.config)
        do {
            try StateStore(directory: config.stateDir).update(uid, repair: true) { $0.unlock() }
        } catch {
            throw .failed(tr("unlock: \(error)"))
        }
        Syslog.log(LOG_NOTICE, "\(user): fingerprint unlocked by root")
        Files.write(tr("\(user): fingerprint unlocked") + "\n", to: 1)
    }
}
