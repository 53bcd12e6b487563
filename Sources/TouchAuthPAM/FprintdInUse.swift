// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore
import TouchAuthPlatform

extension Evaluation {
    /// The readers fprintd is not scanning with (Readers.heldByFprintd), its answer waited for
    /// before the prompt arms. None left: the in-use line and nil, the password at once; nothing
    /// was charged.
    func notHeldByFprintd(_ readers: [Readers.Reader], _ fprintd: FprintdQuestion) -> [Readers.Reader]? {
        let asked = Evaluation.monotonicMicroseconds()
        let answer = fprintd.answer()
        if config.debug {
            debug("fprintd answered (waited \(Evaluation.monotonicMicroseconds() - asked) us): \(Evaluation.describe(answer))")
        }
        let held = Readers.heldByFprintd(readers.map(\.device.name), answer)
        let free = zip(readers, held).filter { !$0.1 }.map(\.0)
        for (reader, isHeld) in zip(readers, held) where isHeld {
            debug("\(Sensor.label(reader.device)): fprintd scans with it; left out")
        }
        guard free.isEmpty else { return free }
        Syslog.log(LOG_NOTICE, "\(user): the fingerprint reader is in use by fprintd; the password")
        send(Message.readerInUse.replyLine)
        return nil
    }

    static func describe(_ answer: Fprintd.Answer) -> String {
        switch answer {
        case .notRunning: "not running"
        case .noAnswer(let why): "no answer (\(why))"
        case .readers(let readers):
            "\(readers.count) reader(s)" + readers.map { ", \($0.name)\($0.scanning ? " scanning" : " idle")" }.joined()
        }
    }
}
