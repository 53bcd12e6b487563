import Glibc
import TouchAuthCore

/// `touchauth list`: the enrolled fingers, read from the print directory (no sensor needed).
enum ListPrints {
    static func run(_ options: [String: String]) throws(CommandError) {
        let config = try Settings.load(configPath: options["config"])
        let store = PrintStore(root: config.printDir)
        var users: [UserName] = []
        if let name = options["user"] {
            guard let (user, _) = System.lookUpUser(name) else { throw .failed("list: no such user '\(name)'") }
            users = [user]
        } else {
            guard access(config.printDir, R_OK | X_OK) == 0 else {
                throw .failed("list: cannot read \(config.printDir): \(String(cString: strerror(errno)))")
            }
            users = System.listDirectory(config.printDir).compactMap(UserName.init)
        }
        for user in users {
            let fingers = store.enrolled(user: user)
            if fingers.isEmpty {
                System.write("\(user): no fingers enrolled\n", to: 1)
            }
            for (driver, deviceID, finger) in fingers {
                System.write("\(user): \(finger.name) (\(driver)/\(deviceID))\n", to: 1)
            }
        }
    }
}
