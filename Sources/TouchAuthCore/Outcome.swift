// SPDX-License-Identifier: Apache-2.0
/// The one result of an evaluation, after LocalAuthentication's `LAError` (docs/POLICY.md#outcomes).
/// The raw value is the word on the protocol's `result` line.
public enum Outcome: String, CaseIterable, Sendable {
    /// A scan matched one of the user's enrolled prints.
    case success
    /// `max_tries` non-matching scans in this attempt.
    case authenticationFailed
    /// The user chose the password.
    case userFallback
    /// The user cancelled.
    case userCancel
    /// Timeout, sensor gone or busy, internal error: the password.
    case systemCancel
    /// Too many failures in a row for this user.
    case biometryLockout
    /// No usable sensor, or a context where a fingerprint makes no sense.
    case biometryNotAvailable
    /// The user has no print enrolled on this sensor.
    case biometryNotEnrolled
    /// The account has no usable password to fall back to.
    case passwordNotSet
    /// The trust policy wants the password first.
    case passwordRequired
}
