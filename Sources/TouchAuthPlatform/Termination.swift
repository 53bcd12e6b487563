// SPDX-License-Identifier: Apache-2.0
import CProcess
import Fingerprint
import Glibc

/// The end of a prompt from outside: the module's SIGTERM (Enter, typing, Ctrl-C; SIGKILL follows
/// `TA_STOP_GRACE_MS` later, pam/contract.h) or the host's death. From `install()` on, SIGTERM
/// does not end the helper: it is blocked in every thread and taken by one of its own (`sigwait`),
/// which cancels the watched scan. That scan ends without a verdict, so its strike is refunded
/// (pressing Enter is not a wrong finger), and `requested` tells the scan loop to charge no
/// further scan. A helper that cannot finish the refund within the grace (a slow disk) is
/// SIGKILLed and keeps the strike: the safe side. A verdict the sensor reported before the cancel
/// stands (Device).
package enum Termination {
    /// Blocks SIGTERM in this thread and every thread started after it, and starts the thread that
    /// takes it. Call before libfprint and GLib start threads of their own.
    package static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else { return }
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { _ in
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGTERM)
            var signal: Int32 = 0
            while true {
                if sigwait(&set, &signal) == 0 { Termination.shared.receive() }
            }
        }, nil)
        if started == 0 {
            pthread_detach(thread)
            dieWithTheHost()
        } else {
            // No thread to take it: SIGTERM ends the helper (the charge stays).
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
    }

    /// The scan's cancellable, cancelled at once if SIGTERM already came; nil once it is over.
    package static func watch(_ cancellable: Cancellable?) { shared.watch(cancellable) }

    /// Whether SIGTERM came.
    package static var requested: Bool { shared.requested }

    /// SIGTERM when the host goes (GDM's worker `_exit`s inside pam_authenticate; a screen locker
    /// is killed), so the scan is cancelled and its strike refunded as for Enter. `execve` of a
    /// setuid file clears the module's parent-death signal, so this also keeps the setuid helper
    /// from outliving its host. Nothing new for a caller: the real uid may send SIGTERM itself. A
    /// host that died before the prctl: SIGTERM at once.
    private static func dieWithTheHost() {
        let host = getppid()
        if touchauth_set_parent_death_signal(SIGTERM) != 0 || getppid() != host { kill(getpid(), SIGTERM) }
    }

    private static let shared = Shared()

    /// What the signal thread and the scan share: every field under `mutex`.
    private final class Shared: @unchecked Sendable {
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        private var target: Cancellable?
        private var received = false

        init() {
            mutex = .allocate(capacity: 1)
            pthread_mutex_init(mutex, nil)
        }

        private func locked<T>(_ body: () -> T) -> T {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return body()
        }

        func receive() {
            locked {
                received = true
                target?.cancel()  // g_cancellable_cancel: thread-safe
            }
        }

        func watch(_ cancellable: Cancellable?) {
            locked {
                target = cancellable
                if received { cancellable?.cancel() }
            }
        }

        var requested: Bool { locked { received } }
    }
}
