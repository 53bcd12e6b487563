// SPDX-License-Identifier: Apache-2.0
/// A user name as PAM hands it over, checked before it goes anywhere near a path
/// (SECURITY.md#user-names). That the account exists is the caller's check (it needs I/O).
public struct UserName: Equatable, Sendable, CustomStringConvertible {
    public let value: String
    public var description: String { value }

    public static let maxBytes = 256

    public init?(_ value: String) {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty, bytes.count <= UserName.maxBytes,
            value != ".", value != "..",
            !bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 < 0x20 || $0 == 0x7f })
        else { return nil }
        self.value = value
    }
}
