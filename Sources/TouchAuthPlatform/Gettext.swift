import CGettext
import TouchAuthCore

/// The one place the helper meets gettext: the user's messages (`Message.text`) are looked up
/// in the `touchauth` domain of glibc's libintl, in the catalogs under the compile-time
/// `TOUCHAUTH_LOCALEDIR` (`/usr/share/locale/<lang>/LC_MESSAGES/touchauth.mo`). The language
/// comes from the locale variables the shim passes (LANGUAGE, LC_ALL, LC_MESSAGES, LANG);
/// nothing else of the caller's environment is consulted.
package enum Gettext {
    static let domain = "touchauth"

    /// Calls `setlocale(LC_MESSAGES, "")`, `bindtextdomain` and `bind_textdomain_codeset`
    /// (UTF-8: the protocol's encoding, whatever LC_CTYPE says), then points `Message.catalog`
    /// at `dgettext`. Run once, at start-up, after the environment is sanitized and before any
    /// other thread.
    package static func start() {
        // Only LC_MESSAGES: numbers, collation and the rest stay "C" for the helper's own work.
        guard setlocale(LC_MESSAGES, "") != nil else { return }
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
