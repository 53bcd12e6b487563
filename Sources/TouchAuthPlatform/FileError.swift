// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Why a file that configures or stores authentication data was not read or written.
package enum FileError: Error, Equatable, CustomStringConvertible {
    case missing(String)
    case unsafe(String, String)
    case io(String, Int32)

    package var description: String {
        switch self {
        case .missing(let path): "\(path): no such file"
        case .unsafe(let path, let why): "\(path): refused: \(why)"
        case .io(let path, let code): "\(path): \(String(cString: strerror(code)))"
        }
    }
}
