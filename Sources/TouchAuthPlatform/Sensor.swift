// SPDX-License-Identifier: Apache-2.0
import Fingerprint
import Glibc
import TouchAuthCore

/// The sensor: which drivers load (`configure`), the one that is used (`choose`, in
/// SensorChoice.swift), and one scan of the scan loop (`scan`). libfprint reads its test drivers'
/// sockets from the environment, which the helper has emptied: only root-owned config
/// (`virtual_device`, `virtual_device_storage`) puts them back, and then only libfprint's virtual
/// drivers are loaded.
package enum Sensor {
    package static func configure(_ config: Config) {
        var drivers: [String] = []
        if !config.virtualDevice.isEmpty {
            setenv("FP_VIRTUAL_DEVICE", config.virtualDevice, 1)
            drivers.append("virtual_device")
        }
        if !config.virtualDeviceStorage.isEmpty {
            setenv("FP_VIRTUAL_DEVICE_STORAGE", config.virtualDeviceStorage, 1)
            drivers.append("virtual_device_storage")
        }
        if !drivers.isEmpty {
            setenv("FP_DRIVERS_WHITELIST", drivers.joined(separator: ":"), 1)
            setenv("FP_DEVICE_EMULATION", "1", 1)  // deterministic device ids
        }
    }
}

extension Sensor {
    /// One scan of the scan loop's target: `fp_device_identify_sync` over every print, or
    /// `fp_device_verify_sync` of one. A retry hint and the cancel (the deadline, SIGTERM, Ctrl-C)
    /// are verdicts; any other error comes back with `.failed`, for the caller's log or message.
    /// A match or no match the sensor reported before the cancel or the error stands (Device:
    /// libfprint reports it before the scan completes, an image sensor once the finger is
    /// lifted); `reported` hears that report as it comes.
    package static func scan(
        _ device: Device, _ target: ScanLoop.Target, _ prints: [(Finger, Print)], _ cancellable: Cancellable,
        reported: ((ScanLoop.Verdict) -> Void)? = nil
    ) -> (ScanLoop.Verdict, FingerprintError?) {
        do throws(FingerprintError) {
            switch target {
            case .identify:
                let match = try device.identify(prints.map(\.1), cancellable) { reported?(verdict($0, verifying: nil)) }
                return (match.map(ScanLoop.Verdict.match) ?? .noMatch, nil)
            case .verify(let index):
                let match = try device.verify(prints[index].1, cancellable) { reported?(verdict($0, verifying: index)) }
                return (match ? .match(index) : .noMatch, nil)
            }
        } catch {
            switch error {
            case .retry(let hint): return (.retry(hint), nil)
            case .cancelled: return (.timedOut, nil)
            default: return (.failed, error)
            }
        }
    }

    /// The sensor's report as a verdict: a verify's match is of the print at `verifying`, an
    /// identify's of the one the report names.
    private static func verdict(_ report: ScanReport, verifying index: Int?) -> ScanLoop.Verdict {
        switch report {
        case .match(let matched): .match(index ?? matched)
        case .noMatch: .noMatch
        case .retry(let hint): .retry(hint)
        }
    }
}
