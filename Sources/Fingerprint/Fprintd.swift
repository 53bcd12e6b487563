// SPDX-License-Identifier: Apache-2.0
import CFprint

/// What fprintd (`net.reactivated.Fprint` on the system bus) says of its readers: whether one of
/// them is scanning for someone else (docs/decisions/0033-a-reader-fprintd-holds.md). Asked only
/// at the system bus's fixed path (never an address from the environment), only when the name has
/// an owner (fprintd is never started for us), every step within one deadline. Its answer can only
/// make a prompt refuse: no answer is "nothing known".
public enum Fprintd {
    /// The system bus, where dbus-daemon and dbus-broker listen on every distribution we ship to.
    public static let systemBusPath = "/run/dbus/system_bus_socket"
    public static let systemBus = "unix:path=" + systemBusPath
    static let name = "net.reactivated.Fprint"

    /// One of fprintd's readers (`net.reactivated.Fprint.Device`'s properties).
    public struct Reader: Equatable, Sendable {
        /// `name`: libfprint's `fp_device_get_name`, as our `Device.name`.
        public let name: String
        /// `finger-needed`: a verification or an enrolment waits for a finger.
        public let fingerNeeded: Bool
        /// `finger-present`: a finger is on it in such a scan.
        public let fingerPresent: Bool

        public init(name: String, fingerNeeded: Bool, fingerPresent: Bool) {
            self.name = name
            self.fingerNeeded = fingerNeeded
            self.fingerPresent = fingerPresent
        }

        /// fprintd holds it for a scan of its own.
        public var scanning: Bool { fingerNeeded || fingerPresent }
    }

    public enum Answer: Equatable, Sendable {
        /// No bus, or no owner of fprintd's name.
        case notRunning
        /// The bus or fprintd did not answer in time, or answered nonsense (the text, for logs).
        case noAnswer(String)
        case readers([Reader])
    }

    /// fprintd's readers, asked within `milliseconds` in all.
    public static func ask(address: String = systemBus, milliseconds: Int) -> Answer {
        let deadline = Int64(g_get_monotonic_time()) + Int64(milliseconds) * 1000
        func left() -> Int32 { Int32(clamping: max(Int64(1), (deadline - Int64(g_get_monotonic_time())) / 1000)) }
        let connection: OpaquePointer
        switch connect(address, milliseconds: milliseconds) {
        case .success(let opened): connection = opened
        case .failure(let why): return why.noBus ? .notRunning : .noAnswer(why.text)
        }
        defer { g_object_unref(gpointer(connection)) }
        let bus = Call(connection: connection, destination: "org.freedesktop.DBus")
        guard let owned = bus.reply("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [name], "(b)", left())
        else { return .noAnswer("NameHasOwner: \(bus.failure)") }
        defer { g_variant_unref(owned) }
        guard boolean(owned, 0) else { return .notRunning }
        let fprintd = Call(connection: connection, destination: name)
        guard let listed = fprintd.reply(
            "/net/reactivated/Fprint/Manager", "net.reactivated.Fprint.Manager", "GetDevices", [], "(ao)", left())
        else { return .noAnswer("GetDevices: \(fprintd.failure)") }
        defer { g_variant_unref(listed) }
        var readers: [Reader] = []
        for path in objectPaths(listed) {
            guard let all = fprintd.reply(
                path, "org.freedesktop.DBus.Properties", "GetAll", ["net.reactivated.Fprint.Device"], "(a{sv})", left())
            else { return .noAnswer("GetAll \(path): \(fprintd.failure)") }
            defer { g_variant_unref(all) }
            guard let reader = reader(all) else { return .noAnswer("\(path): no name") }
            readers.append(reader)
        }
        return .readers(readers)
    }

    /// A device's `GetAll` reply as a reader; nil without a `name`. A missing or mistyped flag is
    /// false: only a present `true` says it scans.
    static func reader(_ reply: OpaquePointer) -> Reader? {
        let properties = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(properties) }
        // A GVariantType is the type string itself: it must live through the call.
        func value(_ key: String, _ type: String) -> OpaquePointer? {
            type.withCString { g_variant_lookup_value(properties, key, g_variant_type_checked_($0)) }
        }
        func flag(_ key: String) -> Bool {
            guard let found = value(key, "b") else { return false }
            defer { g_variant_unref(found) }
            return g_variant_get_boolean(found) != 0
        }
        guard let named = value("name", "s") else { return nil }
        defer { g_variant_unref(named) }
        return Reader(
            name: String(cString: g_variant_get_string(named, nil)),
            fingerNeeded: flag("finger-needed"), fingerPresent: flag("finger-present"))
    }

    static func boolean(_ tuple: OpaquePointer, _ index: gsize) -> Bool {
        let child = g_variant_get_child_value(tuple, index)!
        defer { g_variant_unref(child) }
        return g_variant_get_boolean(child) != 0
    }

    private static func objectPaths(_ tuple: OpaquePointer) -> [String] {
        let array = g_variant_get_child_value(tuple, 0)!
        defer { g_variant_unref(array) }
        return (0..<g_variant_n_children(array)).map { index in
            let path = g_variant_get_child_value(array, index)!
            defer { g_variant_unref(path) }
            return String(cString: g_variant_get_string(path, nil))
        }
    }

    /// One method call (`g_dbus_connection_call_sync`, never auto-starting a service); the reply
    /// checked against `type` by GDBus.
    final class Call {
        let connection: OpaquePointer
        let destination: String
        var failure = ""

        init(connection: OpaquePointer, destination: String) {
            self.connection = connection
            self.destination = destination
        }

        func reply(
            _ path: String, _ interface: String, _ method: String, _ strings: [String], _ type: String, _ timeout: Int32
        ) -> OpaquePointer? {
            var children: [OpaquePointer?] = strings.map { g_variant_new_string($0) }
            let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
            var error: UnsafeMutablePointer<GError>?
            let reply = type.withCString { replyType in
                g_dbus_connection_call_sync(
                    connection, destination, path, interface, method, parameters, g_variant_type_checked_(replyType),
                    G_DBUS_CALL_FLAGS_NO_AUTO_START, timeout, nil, &error)
            }
            if let error {
                failure = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
                g_error_free(error)
            }
            return reply
        }
    }

    /// The bus connection (authenticated, `Hello` said), or why not, within `milliseconds`: the
    /// connection is made on a private main context whose timer cancels it (GIO's socket I/O
    /// watches the cancellable).
    static func connect(_ address: String, milliseconds: Int) -> Result<OpaquePointer, ConnectFailure> {
        let context = g_main_context_new()!
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        final class Pending {
            var connection: OpaquePointer?
            var failure: ConnectFailure?
            var done = false
        }
        let pending = Pending()
        let cancellable = g_cancellable_new()!
        defer { g_object_unref(gpointer(cancellable)) }
        let timer = g_timeout_source_new(UInt32(clamping: milliseconds))!
        defer {
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        g_source_set_callback(
            timer,
            { data in
                g_cancellable_cancel(data?.assumingMemoryBound(to: GCancellable.self))
                return gboolean(0)
            }, gpointer(cancellable), nil)
        g_source_attach(timer, context)
        let flags = GDBusConnectionFlags(
            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        withExtendedLifetime(pending) {
            g_dbus_connection_new_for_address(
                address, flags, nil, cancellable,
                { _, result, data in
                    let pending = Unmanaged<Pending>.fromOpaque(data!).takeUnretainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    pending.connection = g_dbus_connection_new_for_address_finish(result, &error)
                    if let error {
                        let code = UInt32(bitPattern: error.pointee.code)
                        let noBus = error.pointee.domain == touchauth_g_io_error_quark()
                            && (code == G_IO_ERROR_NOT_FOUND.rawValue || code == G_IO_ERROR_CONNECTION_REFUSED.rawValue)
                        let text = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
                        pending.failure = ConnectFailure(text: text, noBus: noBus)
                        g_error_free(error)
                    }
                    pending.done = true
                }, Unmanaged.passUnretained(pending).toOpaque())
            while !pending.done { g_main_context_iteration(context, 1) }
        }
        if let connection = pending.connection { return .success(connection) }
        return .failure(pending.failure ?? ConnectFailure(text: "no connection", noBus: false))
    }

    struct ConnectFailure: Error {
        let text: String
        /// No socket at the address, or nobody listening on it: no bus.
        let noBus: Bool
    }
}
