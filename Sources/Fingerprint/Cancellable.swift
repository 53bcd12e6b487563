// SPDX-License-Identifier: Apache-2.0
import CFprint

/// Owns a `GCancellable`, optionally cancelled by a timer on the default main context, which the
/// sync calls iterate: the timeout fires inside `fp_device_verify_sync` on the same thread.
public final class Cancellable {
    let raw: UnsafeMutablePointer<GCancellable>
    private var timer: UnsafeMutablePointer<GSource>?
    private var interrupt: guint = 0

    public init() {
        raw = g_cancellable_new()
    }

    /// Cancels after `milliseconds` (`g_timeout_source_new` attached to the default context).
    public convenience init(milliseconds: UInt32) {
        self.init()
        let source = g_timeout_source_new(milliseconds)!
        g_source_set_callback(
            source,
            { data in
                g_cancellable_cancel(data?.assumingMemoryBound(to: GCancellable.self))
                return gboolean(0)  // G_SOURCE_REMOVE
            }, gpointer(raw), nil)
        g_source_attach(source, nil)
        timer = source
    }

    /// Cancels on SIGINT (`g_unix_signal_add`: the signal is handled on the default main
    /// context, which the sync calls iterate), so Ctrl-C ends an enrolment through libfprint's
    /// own cancellation and the device is closed cleanly. For the commands, never the PAM path.
    public func cancelOnInterrupt() {
        interrupt = g_unix_signal_add(
            SIGINT,
            { data in
                g_cancellable_cancel(data?.assumingMemoryBound(to: GCancellable.self))
                return gboolean(1)  // G_SOURCE_CONTINUE: a second Ctrl-C is as harmless
            }, gpointer(raw))
    }

    public var isCancelled: Bool { g_cancellable_is_cancelled(raw) != 0 }

    public func cancel() { g_cancellable_cancel(raw) }

    deinit {
        if interrupt != 0 { g_source_remove(interrupt) }
        if let timer {
            g_source_destroy(timer)  // harmless if it already fired
            g_source_unref(timer)
        }
        g_object_unref(gpointer(raw))
    }
}
