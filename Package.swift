// swift-tools-version:6.0
// touchauth: Touch ID for Linux. The package splits only at real dependency boundaries:
// a pure core (no C, no I/O), a thin libfprint wrapper (the only code that sees GLib),
// the commands (I/O: files, syslog, the sensor), and a five-line @main.
import PackageDescription

let package = Package(
    name: "touchauth",
    products: [
        .executable(name: "touchauth", targets: ["touchauth"])
    ],
    targets: [
        .target(name: "TouchAuthCore"),
        .systemLibrary(
            name: "CFprint",
            pkgConfig: "libfprint-2",
            providers: [.apt(["libfprint-2-dev", "libglib2.0-dev"])]
        ),
        .target(name: "Fingerprint", dependencies: ["CFprint", "TouchAuthCore"]),
        .systemLibrary(name: "CShadow"),
        .systemLibrary(name: "CGettext"),
        .target(name: "TouchAuthCommands", dependencies: ["TouchAuthCore", "Fingerprint", "CShadow", "CGettext"]),
        .executableTarget(name: "touchauth", dependencies: ["TouchAuthCommands"]),
        .testTarget(name: "TouchAuthCoreTests", dependencies: ["TouchAuthCore"]),
        .testTarget(name: "TouchAuthCommandsTests", dependencies: ["TouchAuthCommands"]),
    ]
)
