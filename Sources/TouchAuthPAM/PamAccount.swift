// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth pam-account`: run by the module's `authsucc` line, which only a succeeded password
/// reaches, unless the fingerprint itself succeeded in this PAM transaction (docs/POLICY.md#lockout). As
/// after a passcode on iOS: the strikes and the lockout are cleared, and the trust rules count
/// from now. Same request and reply as pam-verify (docs/PROTOCOL.md); the outcome is `success`
/// when the state was written.
package enum PamAccount {
    package static func run() -> Int32 {
        PamVerify.serve(mode: "pam-account") { request, _ in record(request) }
    }

    static func record(_ request: Request) -> Outcome {
        do {
            let config = try Config.load(arguments: request.arguments)
            guard let (user, uid) = Accounts.lookUp(request.user) else {
                Syslog.log(LOG_ERR, "pam-account: refusing unknown or malformed user name")
                return .systemCancel
            }
            let hash = PrintStore(root: config.printDir).hash(user: user)
            let before = try? StateStore(directory: config.stateDir).load(uid)
            try StateStore(directory: config.stateDir).update(uid, repair: true) {
                $0.passwordSucceeded(now: SystemFacts.now(), bootID: SystemFacts.bootID(), printsHash: hash)
            }
            if before?.isLocked ?? true { Syslog.log(LOG_NOTICE, "\(user): password used; fingerprint unlocked") }
            return .success
        } catch {
            Syslog.log(LOG_ERR, "pam-account: \(error)")
            return .systemCancel
        }
    }
}
