// SPDX-License-Identifier: Apache-2.0
import CFprint
import TouchAuthCore

/// One scan on several open sensors at once (docs/ARCHITECTURE.md#the-helper-sources): each is armed with libfprint's
/// async call (`fp_device_verify`, `fp_device_identify`) and a cancellable of its own, which the
/// prompt's (the deadline, the module's SIGTERM) cancels too; then this thread iterates GLib's
/// default main context, as the sync calls do, until every scan has completed. The first scan
/// that completes with a verdict (a match, no match, a retry hint) wins, and the others are
/// cancelled at once: what they report after that counts for nothing. A sensor that fails
/// (unplugged, busy) drops out and the others go on. Every call stays on this one thread.
public enum ScanRace {
    /// What one sensor compares its scan with.
    public enum Target {
        /// One print (`fp_device_verify`).
        case verify(Print)
        /// Several prints in one scan (`fp_device_identify`).
        case identify([Print])
    }

    /// How one sensor's scan completed.
    public enum Result: Equatable {
        /// The print at this index of the target's matched (0 for a verify).
        case match(Int)
        case noMatch
        case retry(RetryHint)
        /// Cancelled: by the prompt's cancellable, or because another sensor won.
        case cancelled
        case failed(FingerprintError)

        var isVerdict: Bool {
            switch self {
            case .match, .noMatch, .retry: true
            case .cancelled, .failed: false
            }
        }
    }

    /// Runs one race: the winner's index (nil when no scan came to a verdict: all cancelled or
    /// failed) and how each scan completed, in the order of `entries`.
    public static func run(_ entries: [(Device, Target)], _ prompt: Cancellable) -> (winner: Int?, results: [Result]) {
        let race = Race()
        let runners = entries.enumerated().map { Runner(race, $0.offset, $0.element.0, $0.element.1) }
        race.runners = runners
        let links = runners.map { touchauth_cancellable_forward(prompt.raw, $0.cancellable.raw) }
        defer { for link in links where link != 0 { g_cancellable_disconnect(prompt.raw, link) } }
        runners.forEach { $0.start() }
        while runners.contains(where: { $0.result == nil }) {
            g_main_context_iteration(nil, 1)
        }
        race.runners = []
        return (race.winner, runners.map { $0.result ?? .cancelled })
    }

    private final class Race {
        var runners: [Runner] = []
        var winner: Int?

        /// A scan completed: the first verdict wins and cancels the others.
        func completed(_ index: Int, _ result: Result) {
            guard winner == nil, result.isVerdict else { return }
            winner = index
            for runner in runners where runner.index != index { runner.cancellable.cancel() }
        }
    }

    private final class Runner {
        unowned let race: Race
        let index: Int
        let device: Device
        let target: Target
        let reports: ScanReports
        let cancellable = Cancellable()
        var result: Result?

        init(_ race: Race, _ index: Int, _ device: Device, _ target: Target) {
            self.race = race
            self.index = index
            self.device = device
            self.target = target
            switch target {
            case .verify(let print): reports = ScanReports([print], nil)
            case .identify(let prints): reports = ScanReports(prints, nil)
            }
        }

        /// For the completion callback; valid while `run` keeps the runner (until it completed).
        var context: gpointer { Unmanaged.passUnretained(self).toOpaque() }

        func start() {
            switch target {
            case .verify(let print):
                fp_device_verify(
                    device.raw, print.raw, cancellable.raw,
                    { _, match, _, data, error in ScanReports.received(data, match, error) }, reports.context, nil,
                    { _, result, data in Runner.completed(data, result) }, context)
            case .identify(let prints):
                // The gallery holds no references (`prints` keeps them) and libfprint keeps its
                // own reference to the array for the call.
                let gallery = g_ptr_array_new()!
                defer { g_ptr_array_unref(gallery) }
                for print in prints { g_ptr_array_add(gallery, gpointer(print.raw)) }
                fp_device_identify(
                    device.raw, gallery, cancellable.raw,
                    { _, match, _, data, error in ScanReports.received(data, match, error) }, reports.context, nil,
                    { _, result, data in Runner.completed(data, result) }, context)
            }
        }

        static func completed(_ data: gpointer?, _ result: OpaquePointer?) {
            guard let data else { return }
            Unmanaged<Runner>.fromOpaque(data).takeUnretainedValue().finish(result)
        }

        private func finish(_ asyncResult: OpaquePointer?) {
            var error: UnsafeMutablePointer<GError>?
            let result: Result
            switch target {
            case .verify:
                var match: gboolean = 0
                if fp_device_verify_finish(device.raw, asyncResult, &match, nil, &error) != 0 {
                    result = match != 0 ? .match(0) : .noMatch
                } else {
                    result = failure(error)
                }
            case .identify:
                var match: OpaquePointer?
                let done = fp_device_identify_finish(device.raw, asyncResult, &match, nil, &error)
                defer { if let match { g_object_unref(gpointer(match)) } }  // (transfer full)
                result = done != 0 ? (match.flatMap(reports.index).map(Result.match) ?? .noMatch) : failure(error)
            }
            self.result = result
            race.completed(index, result)
        }

        /// A failed call: what the driver reported before it stands as in the sync path
        /// (`ScanReports.standing`); else the retry hint, the cancel or the failure.
        private func failure(_ error: UnsafeMutablePointer<GError>?) -> Result {
            do throws(FingerprintError) {
                return try reports.standing(FingerprintError.consume(error)).map(Result.match) ?? .noMatch
            } catch {
                switch error {
                case .retry(let hint): return .retry(hint)
                case .cancelled: return .cancelled
                default: return .failed(error)
                }
            }
        }
    }
}
