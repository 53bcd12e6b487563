// SPDX-License-Identifier: Apache-2.0
internal import CConfig

/// The release, from pam/version.h (the module logs the same macro): `touchauth --version`,
/// doctor's first line and its summary.
public enum Release {
    public static let version: String = TOUCHAUTH_VERSION
}
