import TouchAuthCore

/// `touchauth config-dump`: the settings as the helper reads them, in the format the shim's
/// `pam/tests/config_dump` prints too (tests/config/README.md), so the two parsers can be
/// compared on the same files.
enum ConfigDump {
    static func run(_ options: [String: String]) throws(CommandError) {
        let path = options["config"] ?? Config.defaultPath
        var config = Config()
        do {
            let bytes = try System.readTrustedFile(path, maxBytes: Config.maxFileBytes)
            for key in try config.apply(file: bytes) { System.write("unknown key \(key)\n", to: 2) }
        } catch let error as Config.Error {
            switch error {
            case .invalidLine(let n): System.write("invalid line \(n)\n", to: 1)
            case .invalidValue(let key): System.write("invalid \(key)\n", to: 1)
            default: System.write("invalid file\n", to: 1)
            }
            throw .config("\(path): \(error)")
        } catch {
            System.write("invalid file\n", to: 1)
            throw .config("\(error)")
        }
        System.write(config.dump, to: 1)
    }
}
