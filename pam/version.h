/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The release, in one place: pam_touchauth.so logs it (with `debug`), the
 * helper prints it (`touchauth --version`, the first line of `touchauth
 * doctor` and its summary line; Package.swift's CConfig module map exposes
 * this header to Swift), and the package and CHANGELOG.md follow it
 * (tests/e2e/cli.sh checks that every place agrees).  Change it here only.
 */
#ifndef TOUCHAUTH_VERSION_H
#define TOUCHAUTH_VERSION_H

#define TOUCHAUTH_VERSION "0.1.0"

#endif
