// SPDX-License-Identifier: Apache-2.0
/// One evaluation: up to `maxTries` non-matching scans (LocalAuthentication gives three), where
/// a sensor's retry condition ("centre your finger") is a hint, not a strike. Pure: the caller
/// scans and reports each scan here; this says what to show and whether to scan again.
public struct Attempt: Equatable, Sendable {
    public let maxTries: Int
    public private(set) var strikes = 0

    /// What one scan came to.
    public enum Scan: Equatable, Sendable {
        case match
        case noMatch
        case retry(RetryHint)
        /// The attempt's timeout ran out before a finger came.
        case timedOut
        /// The sensor failed (unplugged, busy, protocol error).
        case failed
    }

    public enum Next: Equatable, Sendable {
        /// Show the message (if any) and scan again.
        case scanAgain(Message)
        /// Show the message (if any) and end with this outcome.
        case finish(Outcome, Message?)
    }

    public init(maxTries: Int) {
        precondition(maxTries >= 1, "max_tries is validated by Config")
        self.maxTries = maxTries
    }

    public mutating func record(_ scan: Scan) -> Next {
        switch scan {
        case .match:
            return .finish(.success, nil)
        case .noMatch:
            strikes += 1
            return strikes < maxTries ? .scanAgain(.notRecognized) : .finish(.authenticationFailed, .tooManyTries)
        case .retry(let hint):
            return .scanAgain(.retry(hint))
        case .timedOut:
            return .finish(.systemCancel, .timedOut)
        case .failed:
            return .finish(.systemCancel, .sensorFailed)
        }
    }
}

/// The sensor's reasons to scan again (libfprint's `FpDeviceRetry`).
public enum RetryHint: Equatable, Sendable, CaseIterable {
    case general, tooShort, centerFinger, removeFinger
}
