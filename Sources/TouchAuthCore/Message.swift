// SPDX-License-Identifier: Apache-2.0
internal import CConfig

/// Every sentence a user sees from the helper, in one table (as fprintd's
/// fingerprint-strings.h). Kept short: one line each. Localization (gettext) hooks in here.
public enum Message: Equatable, Sendable {
    case placeFinger
    case placeNamedFinger(Finger)
    /// The fallback "button" when the shim offers no key for it (no terminal): the password
    /// comes after the timeout or the wrong fingers.
    case fallbackHint(title: String, timeout: Int)
    /// The fallback "button" in a terminal, where the shim takes Enter (or typing) as the password.
    case fallbackKeyHint(title: String)
    case notRecognized
    case tooManyTries
    case retry(RetryHint)
    case timedOut
    case sensorFailed
    case noSensor
    case notEnrolled
    case refused(TrustPolicy.Reason)
    /// What the touch approves (sudo, doas, su): the first line of the prompt.
    case approve(Approval)
    /// This prompt was about to arm while another was armed (docs/POLICY.md#one-request-at-a-time):
    /// the other's line, its terminal (or service), and how long it had been waiting.
    case otherWasWaiting(line: String, place: String, seconds: Int)
    /// This armed prompt was ended by another that asked while it waited `seconds`.
    case otherAsked(line: String, place: String, seconds: Int)
    /// `otherWasWaiting` for a prompt that may not see the other (another uid's, or a restricted
    /// caller's: SECURITY.md#user-against-user): that one was waiting, nothing of what it was.
    case otherHiddenWasWaiting
    /// `otherAsked` for a prompt that may not see the other: how long this one waited, no more.
    case otherHiddenAsked(seconds: Int)
    /// fprintd scans with every reader this prompt would arm (an enrolment, a verification).
    case readerInUse
    /// The session of the request is locked and the request is not its lock screen's own
    /// (docs/POLICY.md#a-locked-screen).
    case screenLocked

    /// Error lines go out as PAM_ERROR_MSG, the rest as PAM_TEXT_INFO.
    public var isError: Bool {
        switch self {
        case .notRecognized, .tooManyTries, .timedOut, .sensorFailed: true
        default: false
        }
    }

    /// Said while the prompt goes on: the sensor takes another scan.
    public var asksForAnotherScan: Bool {
        switch self {
        case .placeFinger, .placeNamedFinger, .notRecognized, .retry: true
        default: false
        }
    }

    /// The sentence in the user's language (gettext, through `Message.catalog`).
    public var text: String {
        switch self {
        // A command line is shown as given, never looked up as a msgid.
        case .approve, .otherWasWaiting, .otherAsked: template.localized(by: Message.catalog, translatingArguments: false)
        default: template.localized(by: Message.catalog)
        }
    }

    /// The English sentence, which is the gettext msgid: po/extract.py reads these literals.
    public var template: LocalizedText {
        switch self {
        case .placeFinger: "Place your finger on the fingerprint reader"
        case .placeNamedFinger(let finger): "Place your \(finger.spokenName) on the fingerprint reader"
        // The fallback "button", labelled with `fallback_title`, says what really works where
        // the prompt is: in a terminal the shim takes Enter, or the first typed character, as
        // the password; elsewhere (GDM, polkit) the password comes after the timeout.
        case .fallbackHint(let title, let timeout): "[\(title)] after \(timeout) s"
        case .fallbackKeyHint(let title): "[\(title)] press Enter, or type your password"
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
        // The module says it too, when it refuses a locked user itself (pam/lockout.c).
        case .refused(.lockedOut): LocalizedText(stringLiteral: TA_LOCKOUT_MESSAGE)
        case .refused(.passwordNotSet): "Set a password for this account to use your fingerprint."
        case .refused(.afterBoot): "Your password is required after a restart."
        case .refused(.maxAge(let hours)): "Your password is required when it has not been used for \(hours) hours."
        case .refused(.enrollChanged): "Your password is required after fingerprints were added or changed."
        case .approve(let approval): Message.template(approval)
        case .otherWasWaiting(let line, let place, let seconds):
            "Another request was waiting for your finger: \(line) (\(place), \(seconds) s). Use your password."
        case .otherAsked(let line, let place, let seconds):
            "Another request asked for your finger after this one waited \(seconds) s: \(line) (\(place)). Use your password."
        case .otherHiddenWasWaiting: "Another request was waiting for the fingerprint reader. Use your password."
        case .otherHiddenAsked(let seconds):
            "Another request asked for the fingerprint reader after this one waited \(seconds) s. Use your password."
        case .readerInUse: "The fingerprint reader is in use by another program (fprintd). Use your password."
        case .screenLocked: "The screen is locked. Use your password."
        }
    }

    // The command line, or the files, come last: a line too long for the terminal is cut there.
    private static func template(_ approval: Approval) -> LocalizedText {
        let (program, user, text) = (approval.program.rawValue, approval.user, approval.text)
        return switch approval.kind {
        case .command: "\(program) wants to run as \(user): \(text)"
        case .shell: "\(program) wants to open a shell as \(user)"
        case .edit: "\(program) wants to edit as \(user): \(text)"
        case .user: "\(program) wants to switch to the user \(user)"
        case .line: "\(program) asks you to approve: \(text)"
        }
    }

    public var replyLine: ReplyLine { isError ? .error(text) : .info(text) }
}
