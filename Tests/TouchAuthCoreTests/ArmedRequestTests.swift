// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthCore

@Suite struct ArmedRequestTests {
    let entry = ArmedRequest(pid: 770, start: 123_456, host: 763, uid: 1000, since: 9_000,
                             place: "pts/7", line: "sudo wants to run as root: curl https://x | sh")

    @Test func anEntryRoundTrips() throws {
        #expect(try ArmedRequest.decode(entry.encoded) == entry)
        #expect(String(decoding: entry.encoded, as: UTF8.self).hasPrefix("touchauth-armed 1\npid 770\nstart 123456\n"))
    }

    @Test func controlCharactersNeverReachTheFile() throws {
        let odd = ArmedRequest(pid: 1, start: 1, host: 1, uid: 0, since: 1, place: "pts/1\nline forged", line: "a\u{1b}[2Jb\u{9b}")
        #expect(odd.place == "pts/1?line forged" && odd.line == "a?[2Jb?")
        #expect(try ArmedRequest.decode(odd.encoded) == odd)
    }

    @Test(arguments: [
        "",                                                   // empty
        "touchauth-armed 2\npid 1\nstart 1\nhost 1\nuid 0\nsince 1\nwhere a\nline b\n",  // another version
        "touchauth-armed 1\npid 1\nstart 1\nhost 1\nuid 0\nsince 1\nwhere a\nline b",    // no final newline
        "touchauth-armed 1\nstart 1\npid 1\nhost 1\nuid 0\nsince 1\nwhere a\nline b\n",  // out of order
        "touchauth-armed 1\npid 0\nstart 1\nhost 1\nuid 0\nsince 1\nwhere a\nline b\n",  // pid 0
        "touchauth-armed 1\npid -5\nstart 1\nhost 1\nuid 0\nsince 1\nwhere a\nline b\n", // a sign
        "touchauth-armed 1\npid 1\nstart 1\nhost 1\nuid 0\nsince 1\nwhere a\nline \u{7}\n", // a control byte
        "touchauth-armed 1\npid 1\nstart 1\nhost 1\nuid 0\nsince 1\nwhere \nline b\n",  // an empty field
        "touchauth-armed 1\npid 1\nstart 1\nhost 1\nuid 0\nsince 1\nwhere a\nline b\nextra 1\n", // a line more
    ])
    func malformedEntriesAreRefused(_ text: String) {
        #expect(throws: ArmedRequest.DecodeError.self) { try ArmedRequest.decode(Array(text.utf8)) }
    }

    @Test func theWaitIsInWholeSecondsAndNeverNegative() {
        #expect(entry.waited(at: 50_999) == 41)
        #expect(entry.waited(at: 1_000) == 0)
    }

    @Test func bothSidesNameTheOther() {
        #expect(Message.otherWasWaiting(line: entry.line, place: entry.place, seconds: 41).text
            == "Another request was waiting for your finger: sudo wants to run as root: curl https://x | sh (pts/7, 41 s). Use your password.")
        #expect(Message.otherAsked(line: "sudo wants to run as root: id", place: "pts/3", seconds: 41).text
            == "Another request asked for your finger after this one waited 41 s: sudo wants to run as root: id (pts/3). Use your password.")
    }

    /// What a prompt of another uid, or a user's setuid helper, is told: nothing of the other.
    @Test func theHiddenSidesSayNothingOfTheOther() {
        #expect(Message.otherHiddenWasWaiting.text == "Another request was waiting for the fingerprint reader. Use your password.")
        #expect(Message.otherHiddenAsked(seconds: 41).text
            == "Another request asked for the fingerprint reader after this one waited 41 s. Use your password.")
    }
}
