// SPDX-License-Identifier: Apache-2.0
import TouchAuthCore

/// doctor's last line, for a fleet: one line of stable `key=value` words after the verdict, the
/// same in every language (never translated), so `touchauth doctor | tail -n 1` can be grepped
/// and parsed on every machine:
///
///     touchauth doctor: WARN version=0.1.0 user=alice prints=2 sensors=1 pam=3 lockout=no enabled=yes fail=0 warn=1
///
/// The verdict is the worst level of the checks (OK, WARN, FAIL). `prints`: the user's
/// enrolled prints; `sensors`: the readers found; `pam`: the services that authenticate with
/// the module (0: it is not in use); `lockout`: `no`, `locked` or `unusable` (a state file that
/// counts as locked); `enabled`: the user's switch (`touchauth disable`); `fail`, `warn`: the
/// count of such lines. Keys are only ever added, at the end. `--json` carries the same fields
/// as the last element of its array (`"check":"summary"`, the fields in `"summary"`).
extension Doctor {
    struct Summary {
        let verdict: Level
        let fields: [(String, String)]

        init(findings: [Finding], user: String, prints: Int, sensors: [String], services: Int, lockout: String, enabled: Bool) {
            verdict = findings.map(\.level).max() ?? .ok
            fields = [
                ("version", Release.version), ("user", user), ("prints", "\(prints)"), ("sensors", "\(sensors.count)"),
                ("pam", "\(services)"), ("lockout", lockout), ("enabled", enabled ? "yes" : "no"),
                ("fail", "\(findings.filter { $0.level == .fail }.count)"),
                ("warn", "\(findings.filter { $0.level == .warn }.count)"),
            ]
        }

        /// The fields that are counts (JSON numbers); the others are strings, whatever they look
        /// like (a user may be named `1000`).
        static let counts: Set<String> = ["prints", "sensors", "pam", "fail", "warn"]

        /// `touchauth doctor: VERDICT key=value ...` (a user name has no blanks: UserName).
        var line: String {
            "touchauth doctor: \(verdict.rawValue) " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        }

        /// `{"level":VERDICT,"check":"summary","detail":LINE,"summary":{"status":VERDICT,KEY:VALUE...}}`:
        /// numbers as JSON numbers, the rest as strings.
        var json: String {
            let values = [("status", Status.json(verdict.rawValue))]
                + fields.map { key, value in (key, Summary.counts.contains(key) ? value : Status.json(value)) }
            return "{\"level\":\(Status.json(verdict.rawValue)),\"check\":\"summary\",\"detail\":\(Status.json(line)),"
                + "\"summary\":{" + values.map { "\(Status.json($0.0)):\($0.1)" }.joined(separator: ",") + "}}"
        }
    }
}
