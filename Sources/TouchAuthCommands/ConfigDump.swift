// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth config-dump`: the settings as the helper reads them, in the format the shim's
/// `pam/tests/config_dump` prints too (tests/config/README.md), so the two binaries can be
/// compared on the same files. `--arguments FILE`: module arguments, one a line, over the
/// file; `--restricted`: first filtered as for a caller that is not root (Privilege.filter).
enum ConfigDump {
    static func run(_ options: Options) throws(CommandError) {
        var arguments = try options.arguments.map(readArguments) ?? []
        if options.restricted {
            arguments = Privilege.filter(arguments) {
                Files.write("ignored: module argument \($0) (caller is not root)\n", to: 2)
            }
        }
        let reading = Config.read(arguments: arguments, file: options.config ?? Config.defaultPath)
        for (key, _) in reading.unknown { Files.write("unknown key \(key)\n", to: 2) }
        if let failure = reading.failure {
            Files.write(failure.dumpLine + "\n", to: 1)
            throw .config(failure.description)
        }
        Files.write(reading.config.dump, to: 1)
    }

    /// Each line one argument (the last one's `\n` may be missing).
    private static func readArguments(_ path: String) throws(CommandError) -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .config("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard let bytes = Files.readAll(fd, maxBytes: 64 * 1024) else { throw .config("\(path): unreadable") }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { String(decoding: $0, as: UTF8.self) }
    }
}
