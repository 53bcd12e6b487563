// SPDX-License-Identifier: Apache-2.0
import CConfig
import Foundation
import Testing
@testable import TouchAuthCore

/// ConfigKeys.swift's accessors against the C key table (`CONFIG_KEYS`, pam/config.h), which
/// `config_dump` walks: one accessor per key the helper reads, named as the key in camelCase, whose getter and
/// setter both name that key, with the Swift type of the key's kind (text: String; yes/no:
/// Bool; number: Int). The accessors are read from the source, since Swift cannot list them.
@Suite struct ConfigKeysTests {
    struct Accessor: Equatable { let name, type, getKey, setKey: String }

    static func accessors() throws -> [Accessor] {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/TouchAuthCore/ConfigKeys.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern: #"public var (\w+): (\w+) \{\s*get \{ self\[key: "(\w+)"\] \}\s*set \{ self\[key: "(\w+)"\] = newValue \}\s*\}"#)
        let ns = text as NSString
        return pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            Accessor(name: ns.substring(with: m.range(at: 1)), type: ns.substring(with: m.range(at: 2)),
                     getKey: ns.substring(with: m.range(at: 3)), setKey: ns.substring(with: m.range(at: 4)))
        }
    }

    static func camel(_ key: String) -> String {
        let words = key.split(separator: "_")
        return words.first.map(String.init)! + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    @Test func oneAccessorPerKeyOfTheCTable() throws {
        let accessors = try Self.accessors()
        let keys = Config().dump.split(separator: "\n").map { String($0.prefix { $0 != "=" }) }
        #expect(!keys.isEmpty)
        // The keys only the module reads have no accessor.
        let moduleOnly: Set = ["show_command"]
        #expect(accessors.map(\.getKey).sorted() == keys.filter { !moduleOnly.contains($0) }.sorted())
        #expect(moduleOnly.isSubset(of: keys))
        #expect(accessors.count == Set(accessors.map(\.getKey)).count)
        let config = Config()
        for a in accessors {
            #expect(a.getKey == a.setKey, "\(a.name): the getter and the setter name different keys")
            #expect(a.name == Self.camel(a.getKey), "\(a.name) reads \(a.getKey)")
            let isText = config_text_exists(config, a.getKey)
            let isBool = ["yes", "no"].contains(config.dump.split(separator: "\n")
                .first { $0.hasPrefix(a.getKey + "=") }.map { String($0.dropFirst(a.getKey.count + 1)) } ?? "")
            #expect(a.type == (isText ? "String" : isBool ? "Bool" : "Int"), "\(a.name): \(a.type)")
        }
    }

    private func config_text_exists(_ config: Config, _ key: String) -> Bool {
        var copy = config
        return copy.withValues { config_text($0, key) != nil }
    }
}
