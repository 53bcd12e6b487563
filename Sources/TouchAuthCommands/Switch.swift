import Glibc
import TouchAuthCore

/// `touchauth disable` / `enable`: the per-user switch ("unlock with fingerprint" in iOS apps).
///
/// Off is a marker file, `<state_dir>/<uid>.disabled` (root 0600), that pam_touchauth.so looks
/// for with one `lstat` after the print directory: a disabled user falls through to the password
/// without the helper being started. The helper checks it too (a screen locker's module cannot
/// see into root's state_dir). Any entry at that path counts as off: it can only make
/// touchauth ask for the password, never let anyone in.
enum Switch {
    static func disable(_ options: [String: String]) throws(CommandError) {
        let (user, uid) = try Caller.target(options, "disable", verb: "switch off the fingerprint of")
        try Caller.requireRoot("disable")
        let config = try Settings.load(configPath: options["config"])
        let states = StateStore(directory: config.stateDir)
        try states.setDisabled(uid, true)
        System.log(LOG_NOTICE, "\(user): fingerprint turned off (by uid \(getuid()))")
        System.write("\(user): fingerprint off; the password is asked at once (touchauth enable turns it on)\n", to: 1)
    }

    /// Turning it on takes one matching scan, as the iOS switches do.
    static func enable(_ options: [String: String]) throws(CommandError) {
        let (user, uid) = try Caller.target(options, "enable", verb: "switch on the fingerprint of")
        try Caller.requireRoot("enable")
        let config = try Settings.load(configPath: options["config"])
        let states = StateStore(directory: config.stateDir)
        guard states.isDisabled(uid) else {
            System.write("\(user): fingerprint already on\n", to: 1)
            return
        }
        let (finger, _) = try Verify.scan(user: user, config: config, device: options["device"], command: "enable")
        try states.setDisabled(uid, false)
        System.log(LOG_NOTICE, "\(user): fingerprint turned on (by uid \(getuid()))")
        System.write("\(user): fingerprint on (\(finger.name) matched)\n", to: 1)
    }
}

extension StateStore {
    func disabledMarker(_ uid: uid_t) -> String { "\(directory)/\(uid).disabled" }

    /// Whether the user switched the fingerprint off. Anything at the marker's path counts.
    func isDisabled(_ uid: uid_t) -> Bool {
        var st = stat()
        return lstat(disabledMarker(uid), &st) == 0
    }

    func setDisabled(_ uid: uid_t, _ disabled: Bool) throws(CommandError) {
        let path = disabledMarker(uid)
        do {
            if disabled {
                if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw System.FileError.io(directory, errno) }
                guard try System.checkTrustedDirectory(directory) else { throw System.FileError.missing(directory) }
                try System.writeAtomically(Array("disabled\n".utf8), to: path, mode: 0o600)
            } else if unlink(path) != 0 && errno != ENOENT {
                throw System.FileError.io(path, errno)
            }
        } catch let error as System.FileError {
            throw .failed(error.description)
        } catch {
            throw .failed("\(error)")
        }
    }
}
