// swift-tools-version:6.0
// touchauth: Touch ID for Linux. The package splits only at real dependency boundaries:
// a pure core (no I/O of its own), a thin libfprint wrapper (the only code that sees GLib),
// the commands (I/O: files, syslog, the sensor), and a five-line @main; under the core and
// the commands, the module's own config parser in C.
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
            name: "CConfig", path: "pam", sources: ["config.c", "config_parse.c", "config_file.c"],
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
        .target(
            name: "TouchAuthCommands", dependencies: ["TouchAuthCore", "CConfig", "Fingerprint", "CShadow", "CGettext"]),
        .executableTarget(name: "touchauth", dependencies: ["TouchAuthCommands"]),
        .testTarget(name: "TouchAuthCoreTests", dependencies: ["TouchAuthCore"]),
        .testTarget(name: "TouchAuthCommandsTests", dependencies: ["TouchAuthCommands"]),
    ]
)
