// SPDX-License-Identifier: Apache-2.0
import CShadow
import Glibc
import TouchAuthCore

/// `TrustPolicy.Facts` and the clock, read from the system.
package enum SystemFacts {
    package static func now() -> Int { Int(time(nil)) }

    /// What the trust rules weigh now, each fact read only when a rule that is on needs it
    /// (no boot id, prints digest or shadow lookup on the authentication path for a rule
    /// that is off; `TrustPolicy.decide` does not look at them then).
    package static func gather(_ config: Config, user: UserName, prints: PrintStore) -> TrustPolicy.Facts {
        TrustPolicy.Facts(
            now: now(),
            bootID: config.passwordAfterBoot ? bootID() : "",
            printsHash: config.passwordAfterEnrollChange ? prints.hash(user: user) : "",
            passwordUsable: config.requirePasswordSet ? passwordUsable(user) : true)
    }

    /// `/proc/sys/kernel/random/boot_id`: new at every boot.
    package static func bootID() -> String {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "unknown" }
        defer { close(fd) }
        let bytes = Files.readAll(fd, maxBytes: 64) ?? []
        let id = String(decoding: bytes, as: UTF8.self).filter { $0.isHexDigit || $0 == "-" }
        return id.isEmpty ? "unknown" : id
    }

    /// Whether the account has a password to fall back to: not empty, not locked (`!`) and not
    /// disabled (`*`) in shadow. An account shadow does not know (directory users) counts as
    /// having one: the password module decides.
    static func passwordUsable(_ user: UserName) -> Bool {
        var entry = spwd()
        var result: UnsafeMutablePointer<spwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getspnam_r(user.value, &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let hash = entry.sp_pwdp
        else { return true }
        let first = hash.pointee
        return first != 0 && first != CChar(UInt8(ascii: "!")) && first != CChar(UInt8(ascii: "*"))
    }
}
