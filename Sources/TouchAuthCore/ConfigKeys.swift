// SPDX-License-Identifier: Apache-2.0
extension Config {
    /// The key table's rows (`CONFIG_KEYS`, pam/config.h) as Swift sees them: a name and a type
    /// each, read as `config.maxTries` through `Config`'s one accessor.
    public struct Keys: Sendable {
        public let maxTries = Key<Int>("max_tries")
        public let timeout = Key<Int>("timeout")
        public let reason = Key<String>("reason")
        public let fallbackTitle = Key<String>("fallback_title")
        public let printDir = Key<String>("print_dir")
        public let helper = Key<String>("helper")
        public let debug = Key<Bool>("debug")
        public let virtualDevice = Key<String>("virtual_device")
        public let virtualDeviceStorage = Key<String>("virtual_device_storage")
        /// Strikes, lockout and trust state (docs/POLICY.md#lockout, docs/POLICY.md#presence).
        public let stateDir = Key<String>("state_dir")
        public let lockoutThreshold = Key<Int>("lockout_threshold")
        /// Seconds after which a lockout ends by itself; 0: only the password or an admin.
        public let unlockTime = Key<Int>("unlock_time")
        public let passwordAfterBoot = Key<Bool>("password_after_boot")
        /// Hours without a password after which the password is required; 0: off.
        public let passwordMaxAge = Key<Int>("password_max_age")
        public let passwordAfterEnrollChange = Key<Bool>("password_after_enroll_change")
        public let requirePasswordSet = Key<Bool>("require_password_set")
        /// Where the laptop lids are (`<lid>/state` files): a closed lid skips the readers inside it.
        public let lidDir = Key<String>("lid_dir")
        /// Where sysfs is: a USB reader's port says whether it is removable (docs/POLICY.md#the-lid-and-the-readers-at-hand).
        public let sysfsDir = Key<String>("sysfs_dir")
        /// Where logind does not run, whether a terminal the module owns counts as a person (the
        /// module's rule; doctor reports it).
        public let terminalWithoutLogind = Key<Bool>("terminal_without_logind")
    }

    /// A key of the table, by its name there.
    public struct Key<Value: ConfigValue>: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
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
