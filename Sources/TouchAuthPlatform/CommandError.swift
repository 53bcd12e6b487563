// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Why a command failed. Each is one line on stderr and a non-zero exit status. The stores and
/// the sensor choice throw it too: what they refuse is what the command says.
package enum CommandError: Error, Equatable, CustomStringConvertible {
    case usage(String)
    case config(String)
    case unavailable(String)
    case failed(String)
    /// Ctrl-C: the operation was cancelled through libfprint and left nothing behind.
    case interrupted(String)

    package var description: String {
        switch self {
        case .usage(let why), .config(let why), .unavailable(let why), .failed(let why), .interrupted(let why): why
        }
    }

    /// 2 for a command line that makes no sense, 130 for Ctrl-C (as a shell reports SIGINT),
    /// 1 for everything else.
    package var exitStatus: Int32 {
        if case .usage = self { return 2 }
        if case .interrupted = self { return 130 }
        return 1
    }
}
