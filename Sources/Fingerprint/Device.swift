// SPDX-License-Identifier: Apache-2.0
import CFprint
import TouchAuthCore

/// Owns a reference to an `FpDevice`. Opened with `open`, closed with `close` or on deinit.
public final class Device {
    let raw: UnsafeMutablePointer<FpDevice>
    private var isOpen = false

    init(retaining raw: UnsafeMutablePointer<FpDevice>) {
        self.raw = raw
        g_object_ref(gpointer(raw))
    }

    deinit {
        if isOpen { fp_device_close_sync(raw, nil, nil) }
        g_object_unref(gpointer(raw))
    }

    /// `fp_device_get_driver`: the driver's id, e.g. `virtual_device` (part of fprintd's path).
    public var driver: String { String(cString: fp_device_get_driver(raw)) }
    /// `fp_device_get_device_id` (part of fprintd's path).
    public var deviceID: String { String(cString: fp_device_get_device_id(raw)) }
    /// `fp_device_get_name`: for people.
    public var name: String { String(cString: fp_device_get_name(raw)) }
    public var enrollStages: Int { Int(fp_device_get_nr_enroll_stages(raw)) }
    /// Whether the sensor can find one print among many in one scan (`FP_DEVICE_FEATURE_IDENTIFY`).
    public var canIdentify: Bool { fp_device_has_feature(raw, FP_DEVICE_FEATURE_IDENTIFY) != 0 }
    /// A match-on-chip sensor (`FP_DEVICE_FEATURE_STORAGE`): enrolment stores the template on the
    /// device and the host file is only a reference to it, as with fprintd.
    public var hasStorage: Bool { fp_device_has_feature(raw, FP_DEVICE_FEATURE_STORAGE) != 0 }
    /// `FP_DEVICE_FEATURE_STORAGE_LIST`: the chip can say which prints it holds.
    public var canListStorage: Bool { fp_device_has_feature(raw, FP_DEVICE_FEATURE_STORAGE_LIST) != 0 }
    /// `FP_DEVICE_FEATURE_STORAGE_DELETE`.
    public var canDeleteStorage: Bool { fp_device_has_feature(raw, FP_DEVICE_FEATURE_STORAGE_DELETE) != 0 }
    /// `FP_DEVICE_FEATURE_DUPLICATES_CHECK`: enrolment refuses a finger the chip already holds.
    public var checksDuplicates: Bool { fp_device_has_feature(raw, FP_DEVICE_FEATURE_DUPLICATES_CHECK) != 0 }
    /// A USB reader's bus number and address (sysfs's `busnum`, `devnum`); nil for a reader
    /// that is not on USB (virtual, SPI).
    public var usbLocation: (bus: Int, address: Int)? {
        var bus: CInt = 0, address: CInt = 0
        guard touchauth_fp_device_usb_location(raw, &bus, &address) != 0 else { return nil }
        return (Int(bus), Int(address))
    }
    /// `fp_device_get_scan_type`: "press" or "swipe".
    public var scanType: String { fp_device_get_scan_type(raw) == FP_SCAN_TYPE_SWIPE ? "swipe" : "press" }

    /// `fp_device_open_sync`.
    public func open(_ cancellable: Cancellable? = nil) throws(FingerprintError) {
        var error: UnsafeMutablePointer<GError>?
        guard fp_device_open_sync(raw, cancellable?.raw, &error) != 0 else { throw FingerprintError.consume(error) }
        isOpen = true
    }

    /// `fp_device_close_sync`; errors are of no use to anyone at this point.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        fp_device_close_sync(raw, nil, nil)
    }

    /// One scan against one print (`fp_device_verify_sync`). Returns whether it matched; a
    /// verdict the driver reported before the call failed stands (`ScanReports`). `reported`
    /// hears the driver's report as it comes, before the scan completes.
    public func verify(
        _ print: Print, _ cancellable: Cancellable, reported: ((ScanReport) -> Void)? = nil
    ) throws(FingerprintError) -> Bool {
        let reports = ScanReports([print], reported)
        var match: gboolean = 0
        var error: UnsafeMutablePointer<GError>?
        let done = withExtendedLifetime(reports) {
            fp_device_verify_sync(
                raw, print.raw, cancellable.raw, { _, match, _, data, error in ScanReports.received(data, match, error) },
                reports.context, &match, nil, &error)
        }
        guard done != 0 else { return try reports.standing(FingerprintError.consume(error)) != nil }
        return match != 0
    }

    /// One scan against several prints (`fp_device_identify_sync`). Returns the index of the
    /// print that matched, or nil for a finger that matched none; a verdict the driver reported
    /// before the call failed stands (`ScanReports`).
    public func identify(
        _ prints: [Print], _ cancellable: Cancellable, reported: ((ScanReport) -> Void)? = nil
    ) throws(FingerprintError) -> Int? {
        let gallery = g_ptr_array_new()!
        defer { g_ptr_array_unref(gallery) }  // holds no references: `prints` keeps them alive
        for print in prints { g_ptr_array_add(gallery, gpointer(print.raw)) }
        let reports = ScanReports(prints, reported)
        var match: OpaquePointer?
        var error: UnsafeMutablePointer<GError>?
        let done = withExtendedLifetime(reports) {
            fp_device_identify_sync(
                raw, gallery, cancellable.raw, { _, match, _, data, error in ScanReports.received(data, match, error) },
                reports.context, &match, nil, &error)
        }
        // (transfer full), set from the report even when the call fails
        defer { if let match { g_object_unref(gpointer(match)) } }
        guard done != 0 else { return try reports.standing(FingerprintError.consume(error)) }
        return match.flatMap(reports.index)
    }

    /// The prints the chip holds (`fp_device_list_prints_sync`, a container of references we take
    /// our own of before the array goes).
    public func storedPrints(_ cancellable: Cancellable) throws(FingerprintError) -> [Print] {
        var error: UnsafeMutablePointer<GError>?
        guard let array = fp_device_list_prints_sync(raw, cancellable.raw, &error) else {
            throw FingerprintError.consume(error)
        }
        defer { g_ptr_array_unref(array) }  // (transfer container): its free function drops its references
        return (0..<Int(array.pointee.len)).compactMap { index in
            array.pointee.pdata[index].map { element in
                g_object_ref(element)
                return Print(adopting: OpaquePointer(element))
            }
        }
    }

    /// Removes a print from the chip (`fp_device_delete_print_sync`).
    public func deleteStored(_ print: Print, _ cancellable: Cancellable) throws(FingerprintError) {
        var error: UnsafeMutablePointer<GError>?
        guard fp_device_delete_print_sync(raw, print.raw, cancellable.raw, &error) != 0 else {
            throw FingerprintError.consume(error)
        }
    }

    /// Enrolls a finger (`fp_device_enroll_sync`), calling `progress` after each stage with the
    /// number of stages done so far, or with a retry hint.
    public func enroll(
        _ template: Print, _ cancellable: Cancellable, progress: (EnrollProgress) -> Void
    ) throws(FingerprintError) -> Print {
        var error: UnsafeMutablePointer<GError>?
        let enrolled = withoutActuallyEscaping(progress) { progress in
            var box = progress
            return withUnsafeMutablePointer(to: &box) { boxPointer in
                fp_device_enroll_sync(
                    raw, template.raw, cancellable.raw,
                    { _, stages, _, data, error in
                        let progress = data!.assumingMemoryBound(to: ((EnrollProgress) -> Void).self).pointee
                        if let error, let hint = FingerprintError.retryHint(error) {
                            progress(.retry(hint))  // (transfer none): libfprint frees it
                        } else {
                            progress(.stage(Int(stages)))
                        }
                    }, gpointer(boxPointer), &error)
            }
        }
        guard let enrolled else { throw FingerprintError.consume(error) }
        return Print(adopting: enrolled)
    }
}

public enum EnrollProgress: Equatable {
    case stage(Int)
    case retry(RetryHint)
}

/// What the driver said of the scan in progress (`fpi_device_verify_report`,
/// `fpi_device_identify_report`, delivered to the `match_cb` of fp_device_verify/identify),
/// which comes before the action completes: image sensors complete once the finger is lifted.
public enum ScanReport: Equatable, Sendable {
    /// The print at this index of those compared matched.
    case match(Int)
    case noMatch
    /// A retry hint: no verdict.
    case retry(RetryHint)
}

/// The `match_cb`'s context for one scan: the prints compared, the driver's report, the caller's
/// listener. libfprint calls it in the thread that iterates the sync call's main context (the
/// caller's, inside the sync call, or ScanRace's), at most once a scan.
final class ScanReports {
    let prints: [Print]
    let listener: ((ScanReport) -> Void)?
    private(set) var report: ScanReport?

    init(_ prints: [Print], _ listener: ((ScanReport) -> Void)?) {
        self.prints = prints
        self.listener = listener
    }

    /// For the callback; valid while the caller keeps this object alive (the sync call).
    var context: gpointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The print compared that `match` is (libfprint hands back the gallery's own objects).
    func index(_ match: OpaquePointer) -> Int? {
        prints.firstIndex { $0.raw == match || fp_print_equal($0.raw, match) != 0 }
    }

    /// The `FpMatchCb` of every scan (`data`: its `ScanReports`). `error` (transfer none) is a
    /// retry: libfprint passes no other kind here. A match that names no print compared counts
    /// as none, as the completed call's would.
    static func received(_ data: gpointer?, _ match: OpaquePointer?, _ error: UnsafeMutablePointer<GError>?) {
        guard let data else { return }
        Unmanaged<ScanReports>.fromOpaque(data).takeUnretainedValue().record(match, error)
    }

    private func record(_ match: OpaquePointer?, _ error: UnsafeMutablePointer<GError>?) {
        let report: ScanReport
        if let error {
            report = .retry(FingerprintError.retryHint(error) ?? .general)
        } else {
            report = match.flatMap(index).map(ScanReport.match) ?? .noMatch
        }
        self.report = report
        listener?(report)
    }

    /// The scan's result when the call failed after all. A no match reported before the failure
    /// stands, whatever the failure: a wrong finger keeps its strike. A match stands only when
    /// the failure is our cancel (the deadline, the module's SIGTERM after Enter), which fails
    /// the call with G_IO_ERROR_CANCELLED (GTask's check of the cancellable replaces even a
    /// result): any other error completing the scan (the sensor removed, busy) ends in the
    /// password, never a success from a failing sensor. A retry or no report: the failure.
    func standing(_ failure: FingerprintError) throws(FingerprintError) -> Int? {
        switch report {
        case .noMatch: return nil
        case .match(let index):
            if case .cancelled = failure { return index }
            throw failure
        case .retry, nil: throw failure
        }
    }
}
