// SPDX-License-Identifier: Apache-2.0
import CFprint

/// Owns an `FpContext` (`fp_context_new`). All libfprint calls happen on the thread that made
/// it: the sync API iterates GLib's global default main context, and nothing else may.
public final class Context {
    let raw: UnsafeMutablePointer<FpContext>

    public init() {
        raw = fp_context_new()!
    }

    deinit { g_object_unref(gpointer(raw)) }

    /// The sensors present (`fp_context_get_devices`, which enumerates on first use).
    public func devices() -> [Device] {
        guard let array = fp_context_get_devices(raw) else { return [] }  // (transfer none)
        return (0..<Int(array.pointee.len)).compactMap { index in
            array.pointee.pdata[index].map { Device(retaining: $0.assumingMemoryBound(to: FpDevice.self)) }
        }
    }
}
