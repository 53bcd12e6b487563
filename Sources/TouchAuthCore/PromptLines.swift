// SPDX-License-Identifier: Apache-2.0

/// The prompt's first lines and how it says the later ones (`pam-verify`, docs/PROTOCOL.md): what
/// the touch approves (or the service's reason), then the finger's line and the way to the
/// password, laid out as the client can show them. Pure: the caller sends the lines and gives the
/// milliseconds since the sensor opened, for the seconds a one-line hint counts down.
public struct PromptLines: Equatable, Sendable {
    /// How the finger's line and the fallback hint are laid out.
    public enum Layout: Equatable, Sendable {
        /// No `fallback_title`, or a polkit dialog's password field beside the prompt (the field
        /// is the way to the password): the finger's line alone.
        case promptOnly
        /// The shim takes Enter (a terminal it owns): the finger's line, then the key's hint.
        case keyHintAfter
        /// No key, a client that shows only the latest message (pam/clients.c: LightDM's greeters,
        /// xsecurelock): both in one line, again after each wrong finger, with the seconds left.
        case oneLine
        /// No key (a greeter, a screen locker, a polkit dialog): the hint first, the prompt last.
        case hintFirst
    }

    public let layout: Layout
    /// The line before the finger's: what the touch approves, else the service's reason.
    public let heading: String?
    let title: String
    let timeout: Int

    public init(_ request: Request, _ config: Config) {
        title = config.fallbackTitle
        timeout = config.timeout
        if let approval = request.approval {
            heading = Approval.fitted(Message.approve(approval).text, columns: request.columns)
        } else {
            heading = config.reason.isEmpty ? nil : config.reason
        }
        // The hint never promises a key the shim does not take.
        layout =
            if title.isEmpty || request.fallback == .field { .promptOnly }
            else if request.fallback == .enter { .keyHintAfter }
            else if request.fallback == .noKey && request.oneMessage { .oneLine }
            else { .hintFirst }
    }

    /// The lines before the first scan, `prompt` being the scan loop's first (ScanLoop.prompt).
    public func opening(_ prompt: Message, elapsedMilliseconds: Int) -> [ReplyLine] {
        let first: [ReplyLine] = heading.map { [.info($0)] } ?? []
        return first + {
            switch layout {
            case .promptOnly: [prompt.replyLine]
            case .keyHintAfter: [prompt.replyLine, Message.fallbackKeyHint(title: title).replyLine]
            case .oneLine: [bothWays(prompt, elapsedMilliseconds: elapsedMilliseconds)]
            case .hintFirst: [Message.fallbackHint(title: title, timeout: timeout).replyLine, prompt.replyLine]
            }
        }()
    }

    /// A message of the scan loop: one that asks for another scan carries the hint too in one line.
    public func shown(_ message: Message, elapsedMilliseconds: Int) -> ReplyLine {
        layout == .oneLine && message.asksForAnotherScan
            ? bothWays(message, elapsedMilliseconds: elapsedMilliseconds) : message.replyLine
    }

    /// The message and the hint with the seconds left (at least one) in one line.
    func bothWays(_ message: Message, elapsedMilliseconds: Int) -> ReplyLine {
        let left = max(1, timeout - elapsedMilliseconds / 1000)
        let line = "\(message.text) \u{b7} \(Message.fallbackHint(title: title, timeout: left).text)"
        return message.isError ? .error(line) : .info(line)
    }
}
