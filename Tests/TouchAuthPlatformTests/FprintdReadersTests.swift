// SPDX-License-Identifier: Apache-2.0
import CFprint
import Testing
@testable import Fingerprint
@testable import TouchAuthPlatform

/// What fprintd says of its readers (Fprintd.reader: a `GetAll` reply of
/// net.reactivated.Fprint.Device) and which of ours it takes away (Readers.heldByFprintd):
/// only a reader of the same name that fprintd scans with; no answer takes none.
@Suite struct FprintdReadersTests {
    /// A `GetAll` reply from GVariant's text format.
    private func reply(_ text: String) -> Fprintd.Reader? {
        let variant = "(a{sv})".withCString { g_variant_parse(g_variant_type_checked_($0), text, nil, nil, nil)! }
        defer { g_variant_unref(variant) }
        return Fprintd.reader(variant)
    }

    @Test func aReplyGivesTheNameAndBothFlags() {
        #expect(reply("({'name': <'Virtual device for debugging'>, 'finger-needed': <true>, 'finger-present': <false>, 'scan-type': <'swipe'>},)")
            == Fprintd.Reader(name: "Virtual device for debugging", fingerNeeded: true, fingerPresent: false))
        #expect(reply("({'name': <'R'>, 'finger-needed': <false>, 'finger-present': <true>},)")?.scanning == true)
    }

    /// A flag missing or of another type is false; no name, no reader.
    @Test func missingOrMistypedFlagsAreFalseAndNoNameIsNoReader() {
        #expect(reply("({'name': <'R'>},)") == Fprintd.Reader(name: "R", fingerNeeded: false, fingerPresent: false))
        #expect(reply("({'name': <'R'>, 'finger-needed': <'yes'>, 'finger-present': <1>},)")?.scanning == false)
        #expect(reply("({'finger-needed': <true>},)") == nil)
        #expect(reply("({'name': <42>, 'finger-needed': <true>},)") == nil)
    }

    @Test func onlyAReaderOfTheSameNameThatScansIsHeld() {
        let fprintd = Fprintd.Answer.readers([
            Fprintd.Reader(name: "A", fingerNeeded: true, fingerPresent: false),
            Fprintd.Reader(name: "B", fingerNeeded: false, fingerPresent: false),
            Fprintd.Reader(name: "C", fingerNeeded: false, fingerPresent: true),
        ])
        #expect(Readers.heldByFprintd(["A", "B", "C", "D", "A"], fprintd) == [true, false, true, false, true])
    }

    @Test(arguments: [Fprintd.Answer.notRunning, .noAnswer("timed out"), .readers([])])
    func noAnswerHoldsNothing(answer: Fprintd.Answer) {
        #expect(Readers.heldByFprintd(["A", "B"], answer) == [false, false])
    }
}
