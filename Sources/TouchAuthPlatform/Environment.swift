// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The caller's environment, which configures nothing (DESIGN.md §5): emptied at start-up.
package enum Environment {
    /// Locale variables are the only ones kept (for gettext); everything else, above all
    /// `FP_*`, `G_*`, `GIO_*` and `LD_*`, goes before any library reads it.
    static let keptVariables = ["LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_CTYPE"]

    package static func sanitize() {
        let kept = keptVariables.compactMap { name in getenv(name).map { (name, String(cString: $0)) } }
        clearenv()
        // Byte-wise: `contains("/")` compares Characters and misses a "/" glued to a mark before it.
        for (name, value) in kept where value.utf8.count <= 64 && !value.utf8.contains(UInt8(ascii: "/")) {
            setenv(name, value, 1)
        }
        umask(0o077)
    }
}
