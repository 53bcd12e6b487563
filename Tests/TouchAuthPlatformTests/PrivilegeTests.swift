// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import TouchAuthPlatform

/// The restricted mode's filter (Privilege.filter) reads each argument with the loader's own
/// parser, so a key means the same to both: before it shared the parser, it cut the key at the
/// first `=` untrimmed, and dropped ` reason = …`, which the loader reads as `reason`.
@Suite struct PrivilegeTests {
    @Test(arguments: [
        ("reason=unlock the screen", nil),
        (" reason = unlock the screen ", nil),
        ("\ttimeout=5", nil),
        ("max_tries = 1", nil),
        ("fallback_title=", nil),
        ("print_dir=/home/eve/prints", "print_dir"),
        (" print_dir = /home/eve/prints", "print_dir"),
        ("config=/home/eve/touchauth.conf", "config"),
        ("debug", "debug"),
        ("lockout_threshold=1000", "lockout_threshold"),
        ("lid_dir=/home/eve/lid", "lid_dir"),
        ("sysfs_dir=/home/eve/sys", "sysfs_dir"),
        ("colour=blue", "colour"),
        // Not key=value, or nothing at all: passed on, for the loader to refuse or skip.
        ("reason", nil),
        ("", nil),
        ("# a comment", nil),
    ] as [(String, String?)])
    func aCallerKeepsOnlyThePromptsKeys(argument: String, ignored: String?) {
        var heard: [String] = []
        let kept = Privilege.filter([argument]) { heard.append($0) }
        #expect(kept == (ignored == nil ? [argument] : []))
        #expect(heard == (ignored.map { [$0] } ?? []))
    }
}
