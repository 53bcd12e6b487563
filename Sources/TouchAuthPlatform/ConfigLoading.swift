// SPDX-License-Identifier: Apache-2.0
import CConfig
import Glibc
import TouchAuthCore

/// Loading a `Config` the way the shim does, with the shim's own code (`config_load`,
/// pam/config_parse.c): the file (`--config`, else a `config=` argument, else the default
/// path), then the module arguments over it.
extension Config {
    package static func load(arguments: [String] = [], configPath explicit: String? = nil) throws(CommandError) -> Config {
        let reading = read(arguments: arguments, file: explicit)
        for (key, place) in reading.unknown { warnUnknown(key, in: place) }
        if let failure = reading.failure { throw .config(failure.description) }
        return reading.config
    }

    /// What `config_load` made of a file and the arguments: the settings (on a failure, the
    /// defaults and whatever lines came before it), the unknown keys it skipped and where.
    package struct Reading {
        package var config = Config()
        package var unknown: [(key: String, place: String)] = []
        package var failure: LoadFailure?
    }

    /// `config_load`'s error, worded by `config_error_text`: the command line shows
    /// `touchauth: PATH: invalid line N`, the log `configuration refused: …`.
    package struct LoadFailure: Swift.Error, CustomStringConvertible {
        package let description: String
        /// The one line of a dump (tests/config/README.md), as pam/tests/config_dump prints it.
        package let dumpLine: String
        package let isMissingFile: Bool

        package init(_ error: UnsafeMutablePointer<config_error>, arguments: [String]) {
            let argument = arguments.at(Int(error.pointee.argument))
            func text(_ wording: config_wording) -> String {
                var buffer = [CChar](repeating: 0, count: Int(CONFIG_PATH_MAX) + (argument?.utf8.count ?? 0) + 256)
                config_error_text(error, wording, argument, &buffer, buffer.count)
                return Config.string(buffer)
            }
            description = text(CONFIG_WORDING_HELPER)
            dumpLine = text(CONFIG_WORDING_DUMP)
            isMissingFile = error.pointee.kind == CONFIG_ERR_FILE && error.pointee.file == CONFIG_FILE_MISSING
        }
    }

    /// `file`: that file, which must exist, whatever `config=` says; nil: as the module reads.
    package static func read(arguments: [String] = [], file: String?) -> Reading {
        var reading = Reading()
        var error = config_error()
        // A C string ends at a NUL, so such an argument would not be read whole: refused.
        if let index = arguments.firstIndex(where: { $0.utf8.contains(0) }) {
            error.kind = CONFIG_ERR_ARG
            error.argument = CInt(index)
            reading.failure = LoadFailure(&error, arguments: arguments)
            return reading
        }
        let (status, unknown) = Config.hearingUnknownKeys { log in
            Config.withCStrings(arguments) { argv in
                reading.config.withValues { config_load(log, file, CInt(arguments.count), argv, $0, &error) }
            }
        }
        reading.unknown = unknown
        if status != 0 { reading.failure = LoadFailure(&error, arguments: arguments) }
        return reading
    }

    private static func warnUnknown(_ key: String, in place: String) {
        Syslog.log(LOG_WARNING, "unknown key \(key) in \(place)")
        Files.write(tr("touchauth: warning: unknown key \(key) in \(place)") + "\n", to: 2)
    }
}
