// SPDX-License-Identifier: Apache-2.0
import CConfig
import Glibc
import Testing

/// The language of the user's messages, chosen once for both binaries (pam/contract.h:
/// `ta_messages_locale`): the helper's Gettext.start and the module's lockout line (lockout.c;
/// its C test is pam/tests/test_helper.c's test_messages_locale). End to end: install, "locked,
/// LANG=zh_CN.UTF-8 -> the module's lockout line in Simplified Chinese".
@Suite struct GettextTests {
    /// The locale chosen from LC_ALL, LC_MESSAGES, LANG (nil: unset).
    func chosen(_ lcAll: String?, _ lcMessages: String?, _ lang: String?) -> String? {
        let copies = [lcAll, lcMessages, lang].map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        return ta_messages_locale(copies[0], copies[1], copies[2]).map { String(cString: $0) }
    }

    @Test func glibcsOrderLcAllThenLcMessagesThenLang() {
        #expect(chosen("de_DE.UTF-8", "fr_FR.UTF-8", "zh_CN.UTF-8") == "de_DE.UTF-8")
        #expect(chosen(nil, "fr_FR.UTF-8", "zh_CN.UTF-8") == "fr_FR.UTF-8")
        #expect(chosen(nil, nil, "zh_CN.UTF-8") == "zh_CN.UTF-8")
        #expect(chosen(nil, nil, nil) == nil)
    }

    @Test func anEmptyValueIsUnset() {
        #expect(chosen("", "", "zh_TW.UTF-8") == "zh_TW.UTF-8")
        #expect(chosen("", "", "") == nil)
    }

    @Test func aValueTheFilterRefusesIsPassedOver() {
        #expect(chosen("../../tmp/x", "fr_FR.UTF-8", nil) == "fr_FR.UTF-8")
        #expect(chosen(nil, "/etc", "zh_CN.UTF-8") == "zh_CN.UTF-8")
        #expect(chosen(String(repeating: "a", count: 65), nil, "C.UTF-8") == "C.UTF-8")
        #expect(chosen("de DE", nil, nil) == nil)
    }
}
