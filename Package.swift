// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
// touchauth: Touch ID for Linux. One target per owner:
// - TouchAuthCore: the pure core (outcomes, the scan loop, trust policy, strikes, the protocol,
//   the typed Config): no I/O of its own, unit-tested in process;
// - Fingerprint: the thin libfprint wrapper, the only code that sees GLib;
// - TouchAuthPlatform: the operating system (files checked for owners and links, the state and
//   print stores, syslog, gettext, accounts, privilege, loading the config, the sensor choice);
// - TouchAuthPAM: the helper's side of the module (`pam-verify`, `pam-account`);
// - TouchAuthCommands: the command line (its table, typed options, one file per command);
// - touchauth: the two-line main. Under the core, the module's own config parser in C; beside
//   main, CArgv (argv for the stdlib without the runtime's start-up scan).
import PackageDescription

let package = Package(
    name: "touchauth",
    products: [
        .executable(name: "touchauth", targets: ["touchauth"])
    ],
    targets: [
        // The config parser is the module's own C, built into the helper too (pam_unix builds
        // passverify.c into the module and unix_chkpwd): one grammar, one implementation.
        // SwiftPM quirks: a C target outside Sources/ needs `path:`, and `sources:` keeps the
        // rest of pam/ (libpam code, tests, fuzzers) out. The public headers directory must be
        // inside `path`, and the module map SwiftPM would generate for it takes every header
        // there; so pam/include holds only a module map that names ../config.h, and config.h
        // stays beside config.c for pam/Makefile. HELPER_PATH is config.h's default here (the
        // helper's own default always was; only the module is built with another).
        .target(
            name: "CConfig", path: "pam", sources: ["config.c", "config_parse.c", "config_file.c", "keyring.c", "pamstack.c", "clients.c"],
            publicHeadersPath: "include", cSettings: [.define("_GNU_SOURCE")]),
        .target(name: "TouchAuthCore", dependencies: ["CConfig"]),
        .systemLibrary(
            name: "CFprint",
            pkgConfig: "libfprint-2",
            providers: [.apt(["libfprint-2-dev", "libglib2.0-dev"])]
        ),
        .target(name: "Fingerprint", dependencies: ["CFprint", "TouchAuthCore"]),
        .systemLibrary(name: "CShadow"),
        .systemLibrary(name: "CGettext"),
        .systemLibrary(name: "CProcess"),
        .target(
            name: "TouchAuthPlatform",
            dependencies: ["TouchAuthCore", "CConfig", "Fingerprint", "CShadow", "CGettext", "CProcess"]),
        .target(name: "TouchAuthPAM", dependencies: ["TouchAuthCore", "TouchAuthPlatform", "Fingerprint"]),
        .target(
            name: "TouchAuthCommands",
            dependencies: ["TouchAuthCore", "TouchAuthPlatform", "TouchAuthPAM", "Fingerprint"]),
        // CommandLine.arguments' argv from glibc's .init_array call instead of the Swift
        // runtime's /proc/self/maps scan at every start (Sources/CArgv/argv.c).
        .target(name: "CArgv"),
        .executableTarget(name: "touchauth", dependencies: ["TouchAuthCommands", "CArgv"]),
        .testTarget(name: "TouchAuthCoreTests", dependencies: ["TouchAuthCore"]),
        .testTarget(name: "TouchAuthPlatformTests", dependencies: ["TouchAuthPlatform"]),
        .testTarget(name: "TouchAuthCommandsTests", dependencies: ["TouchAuthCommands", "TouchAuthPlatform"]),
    ]
)
