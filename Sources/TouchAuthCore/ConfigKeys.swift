// SPDX-License-Identifier: Apache-2.0
extension Config {
    // The key table's rows (`CONFIG_KEYS`, pam/config.h) as Swift sees them, through `Config`'s
    // one accessor (`self[key:]`). Plain properties, not key paths into a table: those cost every
    // helper start (bench/README.md#start-up-and-the-write-path-issue-24-2026-12-04).
    public var maxTries: Int {
        get { self[key: "max_tries"] }
        set { self[key: "max_tries"] = newValue }
    }
    public var timeout: Int {
        get { self[key: "timeout"] }
        set { self[key: "timeout"] = newValue }
    }
    public var reason: String {
        get { self[key: "reason"] }
        set { self[key: "reason"] = newValue }
    }
    public var fallbackTitle: String {
        get { self[key: "fallback_title"] }
        set { self[key: "fallback_title"] = newValue }
    }
    public var printDir: String {
        get { self[key: "print_dir"] }
        set { self[key: "print_dir"] = newValue }
    }
    public var helper: String {
        get { self[key: "helper"] }
        set { self[key: "helper"] = newValue }
    }
    public var debug: Bool {
        get { self[key: "debug"] }
        set { self[key: "debug"] = newValue }
    }
    public var virtualDevice: String {
        get { self[key: "virtual_device"] }
        set { self[key: "virtual_device"] = newValue }
    }
    public var virtualDeviceStorage: String {
        get { self[key: "virtual_device_storage"] }
        set { self[key: "virtual_device_storage"] = newValue }
    }
    /// Strikes, lockout and trust state (docs/POLICY.md#lockout, docs/POLICY.md#presence).
    public var stateDir: String {
        get { self[key: "state_dir"] }
        set { self[key: "state_dir"] = newValue }
    }
    public var lockoutThreshold: Int {
        get { self[key: "lockout_threshold"] }
        set { self[key: "lockout_threshold"] = newValue }
    }
    /// Seconds after which a lockout ends by itself; 0: only the password or an admin.
    public var unlockTime: Int {
        get { self[key: "unlock_time"] }
        set { self[key: "unlock_time"] = newValue }
    }
    public var passwordAfterBoot: Bool {
        get { self[key: "password_after_boot"] }
        set { self[key: "password_after_boot"] = newValue }
    }
    /// Hours without a password after which the password is required; 0: off.
    public var passwordMaxAge: Int {
        get { self[key: "password_max_age"] }
        set { self[key: "password_max_age"] = newValue }
    }
    public var passwordAfterEnrollChange: Bool {
        get { self[key: "password_after_enroll_change"] }
        set { self[key: "password_after_enroll_change"] = newValue }
    }
    public var requirePasswordSet: Bool {
        get { self[key: "require_password_set"] }
        set { self[key: "require_password_set"] = newValue }
    }
    /// Where the laptop lids are (`<lid>/state` files): a closed lid skips the readers inside it.
    public var lidDir: String {
        get { self[key: "lid_dir"] }
        set { self[key: "lid_dir"] = newValue }
    }
    /// Where sysfs is: a USB reader's port says whether it is removable (docs/POLICY.md#the-lid-and-the-readers-at-hand).
    public var sysfsDir: String {
        get { self[key: "sysfs_dir"] }
        set { self[key: "sysfs_dir"] = newValue }
    }
    /// Where logind does not run, whether a terminal the module owns counts as a person (the
    /// module's rule; doctor reports it).
    public var terminalWithoutLogind: Bool {
        get { self[key: "terminal_without_logind"] }
        set { self[key: "terminal_without_logind"] = newValue }
    }
    /// At a login whose stack unlocks a keyring with the password, the finger too (the module's
    /// rule, pam/keyring.h; doctor reports it per service).
    public var fingerAtKeyringLogin: Bool {
        get { self[key: "finger_at_keyring_login"] }
        set { self[key: "finger_at_keyring_login"] = newValue }
    }
}

/// A type a key's value has: INT (Int), BOOL (Bool), the text and path keys (String).
public protocol ConfigValue: Sendable, CustomStringConvertible {
    /// The value of the key `name` (`config_number`, `config_text`).
    static func value(in config: Config, at name: String) -> Self
    /// The value as a config line writes it, for `config_set`.
    var configText: String { get }
}

extension Int: ConfigValue {
    public static func value(in config: Config, at name: String) -> Int { Int(config.number(name)) }
    public var configText: String { String(self) }
}

extension Bool: ConfigValue {
    public static func value(in config: Config, at name: String) -> Bool { config.number(name) != 0 }
    public var configText: String { self ? "yes" : "no" }
}

extension String: ConfigValue {
    public static func value(in config: Config, at name: String) -> String { config.text(name) }
    public var configText: String { self }
}
