// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import TouchAuthPlatform

/// The lid (Readers.lidClosed, docs/POLICY.md#the-lid-and-the-readers-at-hand): any `<lid_dir>/*/state` saying closed closes it;
/// no directory, no lid.
@Suite struct ReadersTests {
    /// A lid tree in a fresh temp dir: one `<name>/state` per entry.
    private func lidTree(_ states: [String: String]) -> String {
        var template = Array("/tmp/readers-lid.XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        for (name, state) in states {
            mkdir("\(dir)/\(name)", 0o700)
            let file = fopen("\(dir)/\(name)/state", "w")!
            fputs(state, file)
            fclose(file)
        }
        return dir
    }

    @Test func anyClosedLidIsClosed() {
        #expect(Readers.lidClosed(lidTree(["LID0": "state:      closed\n"])))
        #expect(Readers.lidClosed(lidTree(["LID0": "state:      open\n", "LID1": "state:      closed\n"])))
    }

    @Test func openLidsOrNoLidAreOpen() {
        #expect(!Readers.lidClosed(lidTree(["LID0": "state:      open\n"])))
        #expect(!Readers.lidClosed(lidTree([:])))
        #expect(!Readers.lidClosed("/nonexistent/lid"))
    }

    @Test func onlyRemovableIsOutsideTheLid() {
        #expect(Readers.Placement.removable.isExternal)
        #expect(!Readers.Placement.fixed.isExternal)
        #expect(!Readers.Placement.unknown.isExternal)
        #expect(!Readers.Placement.notUSB.isExternal)
    }
}
