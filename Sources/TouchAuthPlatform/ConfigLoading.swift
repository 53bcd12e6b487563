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

    /// `config_load`'s error in the helper's words, as before the parser was shared: the
    /// command line shows `touchauth: PATH: invalid line N`, the log `configuration refused: …`.
    package struct LoadFailure: Swift.Error, CustomStringConvertible {
        package let description: String
        /// The one line of a dump (tests/config/README.md), as pam/tests/config_dump prints it.
        package let dumpLine: String
        package let isMissingFile: Bool

        package init(_ error: UnsafeMutablePointer<config_error>, arguments: [String]) {
            let index = Int(error.pointee.argument)
            switch error.pointee.kind {
            case CONFIG_ERR_ARGS: description = "more than \(WireProtocol.maxArguments) module arguments"
            case CONFIG_ERR_FILE: description = FileError(error).description
            case _ where index >= 0:  // a module argument: not key=value, or a bad value
                description = "module arguments: \(Config.Error(error, argument: arguments.at(index) ?? ""))"
            default: description = "\(Config.string(&error.pointee.path)): \(Config.Error(error))"
            }
            var line = [CChar](repeating: 0, count: 64)
            config_error_line(error, &line, line.count)
            dumpLine = Config.string(line)
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

extension FileError {
    /// The verdict of the C file checks (pam/config_file.c) in `readTrustedFile`'s words.
    package init(_ error: UnsafeMutablePointer<config_error>) {
        let path = Config.string(&error.pointee.path)
        switch error.pointee.file {
        case CONFIG_FILE_MISSING: self = .missing(path)
        case CONFIG_FILE_SYMLINK: self = .unsafe(path, "a symbolic link")
        case CONFIG_FILE_NOT_REGULAR: self = .unsafe(path, "not a regular file")
        case CONFIG_FILE_NOT_ROOT: self = .unsafe(path, "not owned by root")
        case CONFIG_FILE_WRITABLE: self = .unsafe(path, "writable by group or others")
        case CONFIG_FILE_LINKED: self = .unsafe(path, "has other hard links")
        case CONFIG_FILE_TOO_BIG: self = .unsafe(path, "larger than \(CONFIG_FILE_MAX) bytes")
        default: self = .io(path, error.pointee.errnum)
        }
    }
}
