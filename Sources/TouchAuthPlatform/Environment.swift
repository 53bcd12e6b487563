// SPDX-License-Identifier: Apache-2.0
import CConfig
import Glibc

/// The caller's environment, which configures nothing (SECURITY.md#guarantees): emptied at start-up.
package enum Environment {
    /// The locale variables (for gettext) are the only ones kept, with the module's own filter
    /// (pam/contract.h: `ta_locale_variable`, `ta_locale_value_ok`); everything else, above all
    /// `FP_*`, `G_*`, `GIO_*` and `LD_*`, goes before any library reads it.
    static let keptVariables: [String] = {
        var names: [String] = []
        while let name = ta_locale_variable(UInt32(names.count)) { names.append(String(cString: name)) }
        return names
    }()

    package static func sanitize() {
        let kept = keptVariables.compactMap { name in
            getenv(name).flatMap { ta_locale_value_ok($0) ? (name, String(cString: $0)) : nil }
        }
        clearenv()
        for (name, value) in kept { setenv(name, value, 1) }
        umask(0o077)
    }
}
