/// Every sentence a user sees from the helper, in one table (as fprintd's
/// fingerprint-strings.h). Kept short: one line each. Localization (gettext) hooks in here.
public enum Message: Equatable, Sendable {
    case placeFinger
    case placeNamedFinger(Finger)
    case fallbackHint(title: String, timeout: Int)
    case notRecognized
    case tooManyTries
    case retry(RetryHint)
    case timedOut
    case sensorFailed
    case noSensor
    case notEnrolled

    /// Error lines go out as PAM_ERROR_MSG, the rest as PAM_TEXT_INFO.
    public var isError: Bool {
        switch self {
        case .notRecognized, .tooManyTries, .timedOut, .sensorFailed: true
        default: false
        }
    }

    public var text: String {
        switch self {
        case .placeFinger: "Place your finger on the fingerprint reader"
        case .placeNamedFinger(let finger): "Place your \(finger.spokenName) on the fingerprint reader"
        // The fallback "button", labelled with `fallback_title`. The shim cannot yet take Enter
        // as "use the password" (the terminal handling comes later), so the hint says what
        // works today: the password comes when the timeout ends.
        case .fallbackHint(let title, let timeout): "[\(title)] after \(timeout) s"
        case .notRecognized: "Not recognized, try again"
        case .tooManyTries: "Fingerprint not recognized"
        case .retry(.general): "Could not read the finger, try again"
        case .retry(.tooShort): "Swipe was too short, try again"
        case .retry(.centerFinger): "Centre your finger on the reader and try again"
        case .retry(.removeFinger): "Remove your finger and try again"
        case .timedOut: "Fingerprint timed out"
        case .sensorFailed: "The fingerprint reader is not available"
        case .noSensor: "No fingerprint reader found"
        case .notEnrolled: "No fingerprint enrolled"
        }
    }

    public var replyLine: ReplyLine { isError ? .error(text) : .info(text) }
}
