// SPDX-License-Identifier: Apache-2.0

/// A gettext catalog (`.mo`) read by ourselves, for the one case glibc will not serve: the
/// command line in the C locale with LANGUAGE set (`LANGUAGE=zh_CN touchauth status` from a
/// shell without LANG). glibc ignores LANGUAGE in "C" and, since it treats C.UTF-8 like C
/// (glibc bug 16621; Debian 13's 2.41 does, Debian 12's 2.36 did not), in C.UTF-8 too; a minimal
/// system has no other locale to switch to. Everywhere else the helper uses glibc's dgettext.
///
/// The file's layout (GNU gettext's manual, "The Format of GNU MO Files"): a magic number that
/// also gives the byte order, a revision, the count N, then the offsets of two tables of N
/// (length, offset) pairs: the msgids and their translations. Every length and offset is
/// checked against the file: a damaged or hostile file yields no catalog, never a crash.
/// Plural and context entries (a NUL or EOT inside the msgid) are not used by touchauth and are
/// skipped, as is the header (the empty msgid).
public struct MoCatalog: Sendable, Equatable {
    public let translations: [String: String]

    public init?(bytes: [UInt8]) {
        guard bytes.count >= 20 else { return nil }
        let bigEndian: Bool
        switch MoCatalog.word(bytes, 0, bigEndian: false) {
        case 0x9504_12de: bigEndian = false
        case 0xde12_0495: bigEndian = true
        default: return nil
        }
        func word(_ at: Int) -> Int? {
            guard at >= 0, at <= bytes.count - 4 else { return nil }
            return Int(MoCatalog.word(bytes, at, bigEndian: bigEndian))
        }
        func string(table: Int, index: Int) -> String? {
            guard let length = word(table + 8 * index), let offset = word(table + 8 * index + 4),
                offset <= bytes.count, length <= bytes.count - offset
            else { return nil }
            return String(validating: bytes[offset..<offset + length], as: UTF8.self)
        }
        // Revision 0 is the only one whose strings are read this way (major revision 0).
        guard let revision = word(4), revision >> 16 == 0, let count = word(8), let originals = word(12),
            let translated = word(16), count <= bytes.count / 8
        else { return nil }
        var table: [String: String] = [:]
        for index in 0..<count {
            guard let msgid = string(table: originals, index: index),
                let text = string(table: translated, index: index)
            else { return nil }
            if msgid.isEmpty || msgid.contains("\0") || msgid.contains("\u{4}") { continue }
            table[msgid] = text
        }
        translations = table
    }

    /// The translation of `msgid`, or nil (none, or an empty one: gettext shows the msgid then).
    public func lookup(_ msgid: String) -> String? {
        guard let text = translations[msgid], !text.isEmpty else { return nil }
        return text
    }

    /// The directory names to try for a LANGUAGE value, in gettext's order: each entry of the
    /// colon-separated list, then that entry without its codeset and modifier, then the bare
    /// language (`zh_CN.UTF-8` -> `zh_CN.UTF-8`, `zh_CN`, `zh`). An entry that is not a plain
    /// locale name (letters, digits, `_`, `.`, `-`, `@`; no `/`, no leading dot) is skipped: the
    /// names become paths, and the helper may run setuid.
    public static func candidates(language: String) -> [String] {
        var names: [String] = []
        for entry in language.split(separator: ":").map(String.init) {
            guard isLocaleName(entry) else { continue }
            var forms = [entry]
            let base = String(entry.prefix { $0 != "." && $0 != "@" })
            forms.append(base)
            forms.append(String(base.prefix { $0 != "_" }))
            for form in forms where !form.isEmpty && !names.contains(form) { names.append(form) }
        }
        return names
    }

    static func isLocaleName(_ name: String) -> Bool {
        func letter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = name.unicodeScalars.first, letter(first), name.utf8.count <= 64 else { return false }
        return name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) || "_.-@".unicodeScalars.contains($0) }
    }

    private static func word(_ bytes: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
        let b = (0..<4).map { UInt32(bytes[at + $0]) }
        return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }
}
