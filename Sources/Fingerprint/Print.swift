// SPDX-License-Identifier: Apache-2.0
import CFprint
import TouchAuthCore

/// Owns an `FpPrint`: an enrolled template, or one just scanned.
public final class Print {
    let raw: OpaquePointer

    /// Adopts a non-floating reference the caller owned.
    init(adopting raw: OpaquePointer) { self.raw = raw }

    deinit { g_object_unref(gpointer(raw)) }

    /// A template for enrolling on `device` (`fp_print_new`, which returns a floating reference:
    /// we sink it so this object owns exactly one).
    public convenience init(templateFor device: Device, finger: Finger, user: String) {
        let raw = fp_print_new(device.raw)!
        g_object_ref_sink(gpointer(raw))
        self.init(adopting: raw)
        fp_print_set_finger(raw, FpFinger(UInt32(finger.rawValue)))
        fp_print_set_username(raw, user)
    }

    /// Reads fprintd's file format (`fp_print_deserialize`).
    public static func deserialize(_ bytes: [UInt8]) throws(FingerprintError) -> Print {
        var error: UnsafeMutablePointer<GError>?
        let raw = bytes.withUnsafeBufferPointer { fp_print_deserialize($0.baseAddress, gsize($0.count), &error) }
        guard let raw else { throw FingerprintError.consume(error) }
        // FpPrint is a GInitiallyUnowned: should a version hand out a floating reference, sinking
        // it turns it into the one reference this object owns.
        if g_object_is_floating(gpointer(raw)) != 0 { g_object_ref_sink(gpointer(raw)) }
        return Print(adopting: raw)
    }

    /// fprintd's file format (`fp_print_serialize`; the bytes start with "FP3").
    public func serialize() throws(FingerprintError) -> [UInt8] {
        var data: UnsafeMutablePointer<guchar>?
        var length: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        guard fp_print_serialize(raw, &data, &length, &error) != 0, let data else {
            throw FingerprintError.consume(error)
        }
        defer { g_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: Int(length)))
    }

    /// The same enrolled print (`fp_print_equal`): how a host file is matched with its chip copy.
    public func isSame(as other: Print) -> Bool { fp_print_equal(raw, other.raw) != 0 }

    public var finger: Finger? { Finger(rawValue: Int(fp_print_get_finger(raw).rawValue)) }
    public var username: String? { fp_print_get_username(raw).map { String(cString: $0) } }
    public var driver: String { fp_print_get_driver(raw).map { String(cString: $0) } ?? "" }
    public var deviceID: String { fp_print_get_device_id(raw).map { String(cString: $0) } ?? "" }
}
