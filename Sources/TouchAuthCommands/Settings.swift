import Glibc
import TouchAuthCore

/// Loads `Config` the way the shim does: the file (`config=` argument or the default path),
/// then the module arguments over it.
enum Settings {
    static func load(arguments: [String] = [], configPath explicit: String? = nil) throws(CommandError) -> Config {
        var config = Config()
        let named: String?
        do {
            named = try explicit ?? Config.configPath(in: arguments)
        } catch {
            throw .config("module arguments: \(error)")
        }
        let path = named ?? Config.defaultPath
        do {
            let bytes = try System.readTrustedFile(path, maxBytes: Config.maxFileBytes)
            for key in try config.apply(file: bytes) { warnUnknown(key, in: path) }
        } catch let error as System.FileError {
            // Only the default file may be missing: an explicitly named one is a mistake.
            if case .missing = error, named == nil {} else { throw .config(error.description) }
        } catch let error as Config.Error {
            throw .config("\(path): \(error)")
        } catch {
            throw .config("\(path): \(error)")
        }
        guard arguments.count <= WireProtocol.maxArguments else {
            throw .config("more than \(WireProtocol.maxArguments) module arguments")
        }
        for argument in arguments {
            do {
                if try !config.apply(argument: argument) { warnUnknown(argument, in: "module arguments") }
            } catch {
                throw .config("module arguments: \(error)")
            }
        }
        return config
    }

    private static func warnUnknown(_ key: String, in place: String) {
        System.log(LOG_WARNING, "unknown key \(key) in \(place)")
        System.write("touchauth: warning: unknown key \(key) in \(place)\n", to: 2)
    }
}
