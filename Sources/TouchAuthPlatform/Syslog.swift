// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The helper's log: syslog's `LOG_AUTHPRIV`, as `touchauth[pid]`.
package enum Syslog {
    package static func open() { openlog("touchauth", LOG_PID, LOG_AUTHPRIV) }

    /// One line to syslog (`LOG_AUTHPRIV`). Never fingerprint data.
    package static func log(_ priority: Int32, _ message: String) {
        withVaList([]) { vsyslog(priority, message.replacingPercents, $0) }
    }
}

extension String {
    /// syslog takes a format string: a message is never one.
    fileprivate var replacingPercents: String { split(separator: "%", omittingEmptySubsequences: false).joined(separator: "%%") }
}
