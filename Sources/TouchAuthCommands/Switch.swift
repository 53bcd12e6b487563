// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore
import TouchAuthPlatform

/// `touchauth disable` / `enable`: the per-user switch ("unlock with fingerprint" in iOS apps).
///
/// Off is a marker file, `<state_dir>/<uid>.disabled` (root 0600), that pam_touchauth.so looks
/// for with one `lstat` after the print directory: a disabled user falls through to the password
/// without the helper being started. The helper checks it too (a screen locker's module cannot
/// see into root's state_dir). Any entry at that path counts as off: it can only make
/// touchauth ask for the password, never let anyone in.
enum Switch {
    static func disable(_ options: Options) throws(CommandError) {
        let (user, uid) = try Caller.target(options, "disable", denied: translatable("only root may switch off the fingerprint of another user"))
        try Caller.requireRoot("disable")
        let config = try Config.load(configPath: options.config)
        let states = StateStore(directory: config.stateDir)
        try states.setDisabled(uid, true)
        Syslog.log(LOG_NOTICE, "\(user): fingerprint turned off (by uid \(getuid()))")
        Files.write(tr("\(user): fingerprint off; the password is asked at once (touchauth enable turns it on)") + "\n", to: 1)
    }

    /// Turning it on takes one matching scan, as the iOS switches do.
    static func enable(_ options: Options) throws(CommandError) {
        let (user, uid) = try Caller.target(options, "enable", denied: translatable("only root may switch on the fingerprint of another user"))
        try Caller.requireRoot("enable")
        let config = try Config.load(configPath: options.config)
        let states = StateStore(directory: config.stateDir)
        guard states.isDisabled(uid) else {
            Files.write(tr("\(user): fingerprint already on") + "\n", to: 1)
            return
        }
        let (finger, _) = try Verify.scan(user: user, config: config, device: options.device, command: "enable")
        try states.setDisabled(uid, false)
        Syslog.log(LOG_NOTICE, "\(user): fingerprint turned on (by uid \(getuid()))")
        Files.write(tr("\(user): fingerprint on (\(finger.name) matched)") + "\n", to: 1)
    }
}
