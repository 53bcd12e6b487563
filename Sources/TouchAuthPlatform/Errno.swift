// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The one EINTR loop (after swift-system's `valueOrErrno`): calls `body` again while it fails
/// (a negative result) with EINTR, and returns its result, errno kept for the caller.
package func retryingEINTR<T: SignedInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result >= 0 || errno != EINTR { return result }
    }
}
