// SPDX-License-Identifier: Apache-2.0
import CFprint

/// SHA-256 through GLib (`g_compute_checksum_for_data`), which the helper links anyway.
public enum Checksum {
    public static func sha256(_ bytes: [UInt8]) -> String {
        let hex = bytes.withUnsafeBufferPointer {
            g_compute_checksum_for_data(G_CHECKSUM_SHA256, $0.baseAddress, gsize($0.count))
        }
        defer { g_free(hex) }  // (transfer full)
        return hex.map { String(cString: $0) } ?? ""
    }
}
