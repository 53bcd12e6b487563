// SPDX-License-Identifier: Apache-2.0
import Glibc
import CGettext
import CConfig
import TouchAuthCore

/// The one place the helper meets gettext: the user's messages (`Message.text`) are looked up
/// in the `touchauth` domain of glibc's libintl, in the catalogs under the compile-time
/// `TOUCHAUTH_LOCALEDIR` (`/usr/share/locale/<lang>/LC_MESSAGES/touchauth.mo`). The language
/// comes from the locale variables the shim passes (LANGUAGE, and LC_ALL, LC_MESSAGES, LANG as
/// `ta_messages_locale` of pam/contract.h reads them); nothing else of the caller's environment
/// is consulted.
package enum Gettext {
    static let domain = "touchauth"

    /// Calls `setlocale(LC_MESSAGES, ...)`, `bindtextdomain` and `bind_textdomain_codeset`
    /// (UTF-8, the protocol's), then points `Message.catalog` at `dgettext`. Run once, at
    /// start-up, after the environment is sanitized and before any other thread.
    ///
    /// `languageInC`: the command line honours LANGUAGE in a C locale too, where glibc ignores it
    /// (C.UTF-8 included since 2.41: tests/e2e/NOTES.md), through `MoCatalog`; the prompts keep
    /// glibc's rule, as the asking program's own messages do.
    package static func start(languageInC: Bool = false) {
        // Only LC_MESSAGES: numbers, collation and the rest stay "C" for the helper's own work.
        // The locale is the contract's choice (pam/contract.h), as the module's lockout line's.
        let messages = ta_messages_locale(getenv("LC_ALL"), getenv("LC_MESSAGES"), getenv("LANG"))
        guard let chosen = messages.map({ setlocale(LC_MESSAGES, $0) }) ?? setlocale(LC_MESSAGES, "C") else { return }
        let name = String(cString: chosen)
        if languageInC, name == "C" || name == "POSIX" || name.hasPrefix("C."), let language = getenv("LANGUAGE"),
            language.pointee != 0
        {
            if let catalog = ownCatalog(language: String(cString: language)) { Message.catalog = { catalog.lookup($0) } }
            return
        }
        guard bindtextdomain(domain, touchauth_localedir) != nil,
            bind_textdomain_codeset(domain, "UTF-8") != nil
        else { return }
        Message.catalog = { msgid in
            // dgettext returns its argument itself when there is no translation: compare the
            // pointers while the C string still lives (a String argument's bridged C string
            // would be gone after the call).
            msgid.withCString { key in
                guard let translated = dgettext(Gettext.domain, key), translated != UnsafeMutablePointer(mutating: key)
                else { return nil }
                let text = String(cString: translated)
                return text.isEmpty ? nil : text
            }
        }
    }
}

extension Gettext {
    /// The first of LANGUAGE's languages with a catalog of ours, in gettext's order
    /// (`MoCatalog.candidates`: names that could leave the locale directory are never tried),
    /// read as a trusted file (root's, no link, at most 1 MiB).
    static func ownCatalog(language: String) -> MoCatalog? {
        for name in MoCatalog.candidates(language: language) {
            let path = String(cString: touchauth_localedir) + "/\(name)/LC_MESSAGES/\(domain).mo"
            if let bytes = try? Files.readTrustedFile(path, maxBytes: 1 << 20), let catalog = MoCatalog(bytes: bytes) {
                return catalog
            }
        }
        return nil
    }
}

/// A sentence of the command line's own output (what `enroll`, `list`, `status`, `doctor`,
/// the errors and the help say to a person), in the user's language: the literal is the
/// gettext msgid by LocalizedText's rule (each `\(value)` a `%s`, or `%1$s`, `%2$s`, ...), and
/// the values are shown as given (user names, paths and fprintd's finger names are never
/// looked up). po/extract.py reads every `tr("...")` and `translatable("...")` literal of
/// Sources/TouchAuthCommands and Sources/TouchAuthPlatform.
///
/// Not through here, on purpose: `--json`, doctor's summary line, the OK/WARN/FAIL words and
/// check names, `--version` (scripts grep those: they must not change with the language), and
/// syslog lines (administrators grep them: English).
package func tr(_ text: LocalizedText) -> String {
    text.localized(by: Message.catalog, translatingArguments: false)
}

/// Marks a sentence for po/extract.py that is kept and translated later with `tr(_:)` (a table
/// row's help line, a reason that `--json` shows in English): gettext's `gettext_noop`.
package func translatable(_ text: LocalizedText) -> LocalizedText { text }
