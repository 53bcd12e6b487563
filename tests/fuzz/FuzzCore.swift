// SPDX-License-Identifier: Apache-2.0
// libFuzzer targets for the helper's decoders (Sources/TouchAuthCore), built by tests/fuzz/run.sh
// with `swiftc -sanitize=fuzzer,address` straight from the core's sources, one binary per
// target (-D FUZZ_CONFIG, FUZZ_REQUEST, FUZZ_STATE, FUZZ_ARMED). Beyond "no crash", each checks a property
// that would catch a parser that accepts too much: what is accepted re-encodes to itself.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
#if FUZZ_CONFIG
    // The input up to the first NUL is a file; the rest, split at NULs, module arguments.
    let parts = bytes.split(separator: 0, maxSplits: 33, omittingEmptySubsequences: false)
    var config = Config()
    guard (try? config.apply(file: Array(parts[0]))) != nil else { return 0 }
    for part in parts.dropFirst() {
        let argument = String(decoding: part, as: UTF8.self)
        _ = try? Config.configPath(in: [argument])
        guard (try? config.apply(argument: argument)) != nil else { return 0 }
    }
    // The dump of an accepted config is a file that reads back to the same config.
    var again = Config()
    guard (try? again.apply(file: Array(config.dump.utf8))) != nil, again.dump == config.dump else {
        fatalError("config dump does not read back")
    }
    guard (1...10).contains(config.maxTries), (1...600).contains(config.timeout),
        // Byte-wise, as the parsers check it: "/" + a combining mark is another Character.
        [config.printDir, config.stateDir, config.helper].allSatisfy({ $0.utf8.first == UInt8(ascii: "/") }),
        config.virtualDevice.utf8.count <= Config.maxSocketPathBytes
    else { fatalError("accepted a value out of bounds") }
#elseif FUZZ_REQUEST
    guard let request = try? Request.parse(bytes) else { return 0 }
    guard Array(request.encoded.utf8) == bytes else { fatalError("request does not re-encode to its bytes") }
    // Byte-wise "/": "\u{6DD}/" is one Character, so a Character test missed it (found by this target).
    guard UserName(request.user) != nil || request.user.utf8.contains(UInt8(ascii: "/")) || request.user == "."
        || request.user == ".." || request.user.utf8.count > UserName.maxBytes
    else { fatalError("a user name the protocol accepts but UserName refuses for no stated reason") }
    // A display names a request on another prompt: only an X display's characters, never empty.
    if let display = request.display, display.isEmpty || display.utf8.count > WireProtocol.maxDisplayBytes
        || !display.utf8.allSatisfy({ WireProtocol.displayCharacters.contains($0) }) {
        fatalError("a display the protocol accepts outside its characters")
    }
#elseif FUZZ_STATE
    guard let state = try? UserState.decode(bytes) else { return 0 }
    // (Not byte for byte: the decoder takes leading zeros, "strikes 007"; found by this target.)
    guard (try? UserState.decode(Array(state.encoded.utf8))) == state else { fatalError("state does not read back") }
    var copy = state
    _ = copy.charge(threshold: 5, now: 0)
    copy.refund()
    guard copy.strikes == state.strikes || state.strikes >= 5 else { fatalError("charge + refund changed the strikes") }
#elseif FUZZ_ARMED
    // An entry of the registry of armed requests (root's files, but with text from a command line).
    guard let entry = try? ArmedRequest.decode(bytes) else { return 0 }
    // (Not byte for byte: numbers may have leading zeros.)
    guard (try? ArmedRequest.decode(entry.encoded)) == entry else { fatalError("entry does not read back") }
    guard ![entry.place, entry.line].contains(where: { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f } })
    else { fatalError("a control character in an accepted entry") }
#endif
    return 0
}
