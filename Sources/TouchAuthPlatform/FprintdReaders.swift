// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore

/// Our readers that fprintd scans with now (docs/decisions/0033-a-reader-fprintd-holds.md): a
/// prompt leaves them out, `touchauth enroll` refuses them. What fprintd says can only take a
/// reader away, never give one.
extension Readers {
    /// At most this long a prompt or an enrolment waits for the system bus and fprintd, in all.
    package static let fprintdMilliseconds = 500

    /// The system bus's policies that let fprintd own its name (its package installs one): with
    /// neither file, fprintd cannot be on the system bus, and the bus is not asked.
    package static let fprintdPolicies = [
        "/usr/share/dbus-1/system.d/net.reactivated.Fprint.conf", "/etc/dbus-1/system.d/net.reactivated.Fprint.conf",
    ]

    /// Whether fprintd can be on the system bus at all: its policy installed, the bus's socket
    /// there (Fprintd.systemBus). A few `access` calls; no: nothing more is done.
    package static var fprintdMayRun: Bool {
        fprintdPolicies.contains(where: { access($0, F_OK) == 0 }) && access(Fprintd.systemBusPath, F_OK) == 0
    }

    /// fprintd's readers, from the system bus's fixed path; a bus or a fprintd that does not
    /// answer in time is logged and counts as "nothing known".
    package static func askFprintd() -> Fprintd.Answer {
        guard fprintdMayRun else { return .notRunning }
        let answer = Fprintd.ask(milliseconds: fprintdMilliseconds)
        if case .noAnswer(let why) = answer { Syslog.log(LOG_NOTICE, "fprintd did not answer: \(why)") }
        return answer
    }

    /// For each of our readers (libfprint's names, as `Device.name`), whether fprintd scans with
    /// one of that name: a verification or an enrolment waits for a finger, or has one. Two
    /// readers of one model are told apart by neither side: both count (the safe side).
    package static func heldByFprintd(_ names: [String], _ answer: Fprintd.Answer) -> [Bool] {
        guard case .readers(let theirs) = answer else { return names.map { _ in false } }
        return names.map { name in theirs.contains { $0.name == name && $0.scanning } }
    }
}

/// The question to fprintd (Readers.askFprintd), asked on a thread of its own while the prompt
/// enumerates its readers and applies its rules, so its round trips cost the prompt nothing
/// where they take less than those (bench/README.md). The thread uses a main context of its own
/// (Fprintd.ask), never the default one libfprint iterates; it starts after the environment is
/// set (setenv is not safe beside a thread), and after Termination blocked SIGTERM (inherited).
package final class FprintdQuestion: @unchecked Sendable {
    private var thread = pthread_t()
    private var running = false
    private var result: Fprintd.Answer = .notRunning

    package init() {
        guard Readers.fprintdMayRun else { return }  // .notRunning, no thread
        let me = Unmanaged.passRetained(self).toOpaque()
        running = pthread_create(&thread, nil, { raw in
            let question = Unmanaged<FprintdQuestion>.fromOpaque(raw!).takeRetainedValue()
            question.result = Readers.askFprintd()
            return nil
        }, me) == 0
        if !running {
            Unmanaged<FprintdQuestion>.fromOpaque(me).release()
            result = Readers.askFprintd()
        }
    }

    /// fprintd's answer, once the thread has it (pthread_join: within Readers.fprintdMilliseconds).
    package func answer() -> Fprintd.Answer {
        if running {
            pthread_join(thread, nil)
            running = false
        }
        return result
    }
}
