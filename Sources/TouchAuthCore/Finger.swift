// SPDX-License-Identifier: Apache-2.0
/// A finger, with fprintd's names and its digit in fprintd's print layout.
/// The raw value is libfprint's `FpFinger` (1 left thumb ... 10 right little).
public enum Finger: Int, CaseIterable, Sendable {
    case leftThumb = 1, leftIndex, leftMiddle, leftRing, leftLittle
    case rightThumb, rightIndex, rightMiddle, rightRing, rightLittle

    /// fprintd's name, as `fprintd-enroll -f` takes it.
    public var name: String {
        switch self {
        case .leftThumb: "left-thumb"
        case .leftIndex: "left-index-finger"
        case .leftMiddle: "left-middle-finger"
        case .leftRing: "left-ring-finger"
        case .leftLittle: "left-little-finger"
        case .rightThumb: "right-thumb"
        case .rightIndex: "right-index-finger"
        case .rightMiddle: "right-middle-finger"
        case .rightRing: "right-ring-finger"
        case .rightLittle: "right-little-finger"
        }
    }

    /// The name in a sentence: "right index finger".
    public var spokenName: String { name.split(separator: "-").joined(separator: " ") }

    /// The file name fprintd stores this finger's print under: one lowercase hex digit.
    public var fileName: String { String(rawValue, radix: 16) }

    public init?(name: String) {
        guard let finger = Finger.allCases.first(where: { $0.name == name }) else { return nil }
        self = finger
    }

    public init?(fileName: String) {
        guard fileName.utf8.count == 1, fileName == fileName.lowercased(),
            let value = Int(fileName, radix: 16), let finger = Finger(rawValue: value)
        else { return nil }
        self = finger
    }
}
