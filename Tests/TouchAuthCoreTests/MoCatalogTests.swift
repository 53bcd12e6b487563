// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

@Suite struct MoCatalogTests {
    /// A .mo file as msgfmt lays it out (header, the two tables, the strings), either byte order.
    static func mo(_ entries: [(String, String)], bigEndian: Bool = false) -> [UInt8] {
        func word(_ value: Int) -> [UInt8] {
            let v = UInt32(value)
            let little = [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
            return bigEndian ? little.reversed() : little
        }
        let n = entries.count
        let originals = 28, translated = originals + 8 * n
        var strings: [UInt8] = []
        var tables: ([UInt8], [UInt8]) = ([], [])
        let base = translated + 8 * n
        for (msgid, _) in entries {
            tables.0 += word(msgid.utf8.count) + word(base + strings.count)
            strings += Array(msgid.utf8) + [0]
        }
        for (_, text) in entries {
            tables.1 += word(text.utf8.count) + word(base + strings.count)
            strings += Array(text.utf8) + [0]
        }
        return word(0x9504_12de) + word(0) + word(n) + word(originals) + word(translated) + word(0) + word(base)
            + tables.0 + tables.1 + strings
    }

    @Test func readsEitherByteOrderAndSkipsTheHeader() throws {
        let entries = [("", "Content-Type: text/plain; charset=UTF-8\n"), ("usage:", "用法："), ("no", "否")]
        for bigEndian in [false, true] {
            let catalog = try #require(MoCatalog(bytes: Self.mo(entries, bigEndian: bigEndian)))
            #expect(catalog.lookup("usage:") == "用法：")
            #expect(catalog.lookup("no") == "否")
            #expect(catalog.lookup("") == nil)
            #expect(catalog.lookup("yes") == nil)
        }
    }

    @Test func pluralAndContextEntriesAndEmptyTranslationsAreNotUsed() throws {
        let catalog = try #require(
            MoCatalog(bytes: Self.mo([("file\0files", "文件"), ("menu\u{4}Open", "打开"), ("untranslated", "")])))
        #expect(catalog.translations.keys.sorted() == ["untranslated"])
        #expect(catalog.lookup("untranslated") == nil)
    }

    /// A damaged or hostile file is no catalog: every length and offset is checked.
    @Test func aDamagedFileIsNoCatalog() {
        let good = Self.mo([("usage:", "用法：")])
        #expect(MoCatalog(bytes: good) != nil)
        #expect(MoCatalog(bytes: []) == nil)
        #expect(MoCatalog(bytes: Array(good.prefix(19))) == nil)
        var magic = good; magic[0] = 0
        #expect(MoCatalog(bytes: magic) == nil)
        #expect(MoCatalog(bytes: Array(good.dropLast(3))) == nil)  // the last string runs past the end
        var count = good; count[8] = 0xff; count[9] = 0xff
        #expect(MoCatalog(bytes: count) == nil)  // more entries than the file can hold
        var offset = good; offset[28 + 4] = 0xff; offset[28 + 7] = 0x7f
        #expect(MoCatalog(bytes: offset) == nil)
        var length = good; length[28 + 3] = 0xff
        #expect(MoCatalog(bytes: length) == nil)
        var revision = good; revision[6] = 1
        #expect(MoCatalog(bytes: revision) == nil)  // a major revision we do not know
        var invalid = good; invalid[invalid.count - 3] = 0xff
        #expect(MoCatalog(bytes: invalid) == nil)  // not UTF-8
    }

    @Test func languageCandidatesFollowGettextAndRefusePaths() {
        #expect(MoCatalog.candidates(language: "zh_CN") == ["zh_CN", "zh"])
        #expect(MoCatalog.candidates(language: "zh_TW.UTF-8:zh_CN") == ["zh_TW.UTF-8", "zh_TW", "zh", "zh_CN"])
        #expect(MoCatalog.candidates(language: "sr_RS@latin") == ["sr_RS@latin", "sr_RS", "sr"])
        #expect(MoCatalog.candidates(language: "de") == ["de"])
        #expect(MoCatalog.candidates(language: "../../tmp/x:zh_CN") == ["zh_CN", "zh"])
        #expect(MoCatalog.candidates(language: "/tmp:.hidden:zh CN::") == [])
        #expect(MoCatalog.candidates(language: String(repeating: "a", count: 65)) == [])
    }
}
