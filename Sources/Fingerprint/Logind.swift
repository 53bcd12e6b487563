// SPDX-License-Identifier: Apache-2.0
import CFprint

/// Whether a logind session is locked (`org.freedesktop.login1.Session`'s `LockedHint`, which
/// GNOME Shell and Plasma set while their lock screen is up; docs/POLICY.md#a-locked-screen).
/// Asked as fprintd is (Fprintd.swift): only at the system bus's fixed path, only when logind's
/// name has an owner (never starting it), every step within one deadline. Its answer can only
/// make a prompt refuse: no answer is "nothing known".
public enum Logind {
    static let name = "org.freedesktop.login1"

    public enum Answer: Equatable, Sendable {
        /// No bus, or no owner of logind's name.
        case notRunning
        /// The bus or logind did not answer in time, or answered nonsense (the text, for logs).
        case noAnswer(String)
        /// The session's `LockedHint`.
        case locked(Bool)
    }

    /// `session`'s `LockedHint`, asked within `milliseconds` in all.
    public static func lockedHint(
        session: String, address: String = Fprintd.systemBus, milliseconds: Int
    ) -> Answer {
        let deadline = Int64(g_get_monotonic_time()) + Int64(milliseconds) * 1000
        func left() -> Int32 { Int32(clamping: max(Int64(1), (deadline - Int64(g_get_monotonic_time())) / 1000)) }
        let connection: OpaquePointer
        switch Fprintd.connect(address, milliseconds: milliseconds) {
        case .success(let opened): connection = opened
        case .failure(let why): return why.noBus ? .notRunning : .noAnswer(why.text)
        }
        defer { g_object_unref(gpointer(connection)) }
        let bus = Fprintd.Call(connection: connection, destination: "org.freedesktop.DBus")
        guard let owned = bus.reply("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [name], "(b)", left())
        else { return .noAnswer("NameHasOwner: \(bus.failure)") }
        defer { g_variant_unref(owned) }
        guard Fprintd.boolean(owned, 0) else { return .notRunning }
        let logind = Fprintd.Call(connection: connection, destination: name)
        guard let found = logind.reply(
            "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSession", [session], "(o)", left())
        else { return .noAnswer("GetSession \(session): \(logind.failure)") }
        defer { g_variant_unref(found) }
        let path = objectPath(found)
        guard let reply = logind.reply(
            path, "org.freedesktop.DBus.Properties", "Get", ["org.freedesktop.login1.Session", "LockedHint"], "(v)",
            left())
        else { return .noAnswer("LockedHint of \(path): \(logind.failure)") }
        defer { g_variant_unref(reply) }
        guard let hint = lockedHint(reply) else { return .noAnswer("LockedHint of \(path): not a boolean") }
        return .locked(hint)
    }

    /// A `Get` reply `(v)` holding a boolean; nil when it holds anything else.
    static func lockedHint(_ reply: OpaquePointer) -> Bool? {
        let boxed = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(boxed) }
        let value = g_variant_get_variant(boxed)!
        defer { g_variant_unref(value) }
        let isBoolean = "b".withCString { g_variant_is_of_type(value, g_variant_type_checked_($0)) } != 0
        guard isBoolean else { return nil }
        return g_variant_get_boolean(value) != 0
    }

    private static func objectPath(_ tuple: OpaquePointer) -> String {
        let child = g_variant_get_child_value(tuple, 0)!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }
}
