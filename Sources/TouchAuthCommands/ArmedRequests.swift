// SPDX-License-Identifier: Apache-2.0
import TouchAuthCore
import TouchAuthPlatform

/// The armed requests of this machine (docs/POLICY.md#one-request-at-a-time), for `touchauth
/// status` and `touchauth doctor`: root reads the registry (ArmedRegistry); its entries that
/// no longer count are removed as any prompt would.
enum ArmedRequests {
    /// The armed requests, or why the registry cannot be read (it is then refused by every prompt).
    static func survey() -> Result<[ArmedRequest], FileError> {
        do { return .success(try ArmedRegistry.list()) } catch { return .failure(error) }
    }

    /// One line for status: the request's line, its terminal, how long it has waited, its pids.
    static func text(_ entry: ArmedRequest, now: Int) -> String {
        tr("armed: \(entry.line) (\(entry.place), \(entry.waited(at: now)) s; uid \(entry.uid), pid \(entry.pid), host \(entry.host))")
    }

    static func json(_ entry: ArmedRequest, now: Int) -> String {
        "{\"pid\":\(entry.pid),\"host\":\(entry.host),\"uid\":\(entry.uid),\"where\":\(Status.json(entry.place)),"
            + "\"line\":\(Status.json(entry.line)),\"seconds\":\(entry.waited(at: now))}"
    }
}

extension Doctor {
    /// Whether the rule is in force: the registry is root's alone, and how many requests are armed.
    static func armedCheck(_ note: (Level, String, String) -> Void) {
        let dir = ArmedRegistry.directory
        switch ArmedRequests.survey() {
        case .success(let armed):
            note(.ok, "one request", tr("a reader is armed for one request at a time (\(dir) root 0700; armed now: \(armed.count))"))
        case .failure(let error):
            note(.fail, "one request", tr("\(error.description): no prompt arms until it is fixed (root 0700)"))
        }
    }
}
