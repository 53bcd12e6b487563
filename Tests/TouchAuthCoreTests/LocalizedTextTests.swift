// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

@Suite struct LocalizedTextTests {
    /// A catalog from a table, as gettext would answer.
    static func catalog(_ table: [String: String]) -> (String) -> String? { { table[$0] } }

    @Test func interpolationsBecomeGettextPlaceholders() {
        let finger = "left index finger"
        let one: LocalizedText = "Place your \(finger) on the fingerprint reader"
        #expect(one.msgid == "Place your %s on the fingerprint reader")
        let title = "Enter Password", timeout = 30
        let two: LocalizedText = "[\(title)] after \(timeout) s"
        #expect(two.msgid == "[%1$s] after %2$s s")
        let percent: LocalizedText = "100% sure"
        #expect(percent.msgid == "100%% sure")
    }

    /// The command line's `tr`: a user named like a msgid ("no") stays as written.
    @Test func theCommandLineShowsItsValuesAsGiven() {
        let zh = Self.catalog(["%s: fingerprint unlocked": "%s：指纹已解锁", "no": "否"])
        let user = "no"
        let text: LocalizedText = "\(user): fingerprint unlocked"
        #expect(text.localized(by: zh, translatingArguments: false) == "no：指纹已解锁")
        #expect(text.localized(by: zh) == "否：指纹已解锁")
        // Any value describes itself (a user name type, an error).
        struct Name: CustomStringConvertible { var description: String { "alice" } }
        let described: LocalizedText = "\(Name()) and \(3)"
        #expect(described.msgid == "%1$s and %2$s" && described.english == "alice and 3")
    }

    @Test func withoutACatalogTheTextIsTheEnglish() {
        #expect(Message.placeNamedFinger(.leftIndex).template.english == "Place your left index finger on the fingerprint reader")
        #expect(Message.fallbackHint(title: "Enter Password", timeout: 30).template.english == "[Enter Password] after 30 s")
        #expect(Message.placeFinger.text == "Place your finger on the fingerprint reader")
    }

    @Test func aTranslationMayReorderTheValuesAndStringValuesAreLookedUp() {
        let zh = Self.catalog(["[%1$s] after %2$s s": "%2$s 秒后[%1$s]", "Enter Password": "输入密码"])
        #expect(Message.fallbackHint(title: "Enter Password", timeout: 30).template.localized(by: zh) == "30 秒后[输入密码]")
        // An administrator's own title has no msgid: it stays as written.
        #expect(Message.fallbackHint(title: "Use password", timeout: 5).template.localized(by: zh) == "5 秒后[Use password]")
    }

    @Test(arguments: ["%d 秒", "%1$s %s", "%3$s", "only %1$s", "%", "%x", "50%"])
    func aTranslationWithBadPlaceholdersIsIgnored(bad: String) {
        let broken = Self.catalog(["[%1$s] after %2$s s": bad])
        #expect(Message.fallbackHint(title: "T", timeout: 3).template.localized(by: broken) == "[T] after 3 s")
    }

    @Test func percentSignsSurviveTheRoundTrip() {
        let text: LocalizedText = "100% sure"
        #expect(text.english == "100% sure")
        #expect(text.localized(by: Self.catalog(["100%% sure": "百分之百 %%"])) == "百分之百 %")
    }
}
