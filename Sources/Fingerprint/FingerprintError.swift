// SPDX-License-Identifier: Apache-2.0
import CFprint
import TouchAuthCore

/// Every libfprint failure, converted once, at `FingerprintError.consume(_:)`.
public enum FingerprintError: Error, Equatable, CustomStringConvertible {
    /// `FP_DEVICE_RETRY`: the scan was poor; not a failure, scan again.
    case retry(RetryHint)
    /// `G_IO_ERROR_CANCELLED`: our GCancellable fired (the timeout).
    case cancelled
    /// A finger already enrolled (on a sensor that checks duplicates).
    case duplicate
    /// Anything else: the sensor cannot be used now. The text is libfprint's, for logs.
    case unavailable(String)

    public var description: String {
        switch self {
        case .retry(let hint): "retry (\(hint))"
        case .cancelled: "cancelled"
        case .duplicate: "duplicate print"
        case .unavailable(let why): why
        }
    }

    /// The hint of an `FP_DEVICE_RETRY` error, nil for any other; does not free it (enrolment's
    /// progress callback gets a transfer-none error).
    static func retryHint(_ error: UnsafeMutablePointer<GError>) -> RetryHint? {
        guard error.pointee.domain == touchauth_fp_device_retry_quark() else { return nil }
        switch UInt32(bitPattern: error.pointee.code) {
        case FP_DEVICE_RETRY_TOO_SHORT.rawValue: return .tooShort
        case FP_DEVICE_RETRY_CENTER_FINGER.rawValue: return .centerFinger
        case FP_DEVICE_RETRY_REMOVE_FINGER.rawValue: return .removeFinger
        default: return .general
        }
    }

    /// Converts a transfer-full `GError` and frees it: the one place GErrors end.
    static func consume(_ error: UnsafeMutablePointer<GError>?) -> FingerprintError {
        guard let error else { return .unavailable("libfprint failed without an error") }
        defer { g_error_free(error) }
        let domain = error.pointee.domain
        let code = error.pointee.code
        if let hint = retryHint(error) { return .retry(hint) }
        if domain == touchauth_g_io_error_quark(), UInt32(bitPattern: code) == G_IO_ERROR_CANCELLED.rawValue {
            return .cancelled
        }
        if domain == touchauth_fp_device_error_quark(),
            UInt32(bitPattern: code) == FP_DEVICE_ERROR_DATA_DUPLICATE.rawValue
        {
            return .duplicate
        }
        return .unavailable(error.pointee.message.map { String(cString: $0) } ?? "unknown error")
    }
}
