// SPDX-License-Identifier: Apache-2.0
internal import CConfig

/// One PAM service's stack of one type (`auth`) as libpam builds and runs it, for
/// `touchauth doctor`: a pure value, its files read through a closure. The lines are the module's
/// own reader's (pam/pamstack.c, through CConfig: the keyring rule reads the same way), held to
/// the real libpam by pam/tests/pamstack; the dispatch is modelled on Linux-PAM's
/// pam_dispatch.c (`_pam_dispatch_aux`), 1.5.2 (Debian 12) and unchanged in dispatch through 1.6:
/// - `include X` (and Debian's `@include X`) puts X's lines of the type in place: one scope,
///   jumps count through them, `done` and `die` there end the whole stack;
/// - `substack X` is its own frame: `done`, `die` and a jump that runs past its end end the
///   substack only, `reset` goes back to the state at its start, and a jump in the parent
///   counts the whole substack as one line. There is no result of the substack line itself:
///   its modules change the one state (impression and status) the parent goes on with, so a
///   substack that failed stays failed for the parent, whatever succeeds after it (only
///   `reset` undoes that);
/// - a line libpam cannot use (a file it cannot read, no control, no module, an unknown type)
///   stays in the stack and fails with PAM_PERM_DENIED under its control.
public struct PamStack: Equatable, Sendable {
    public let type: String
    public let items: [Item]

    public indirect enum Item: Equatable, Sendable {
        case module(PamLine)
        /// The `substack` line and the frame it runs.
        case substack(PamLine, [Item])
    }

    /// libpam's PAM_SUBSTACK_MAX_LEVEL (pamstack.h): includes and substacks deep.
    public static let maxDepth = Int(PAMSTACK_DEPTH)

    /// Set when the reader cannot tell how libpam reads the stack (a file it cannot read, too
    /// big, too deep, or one the two libpams read differently): the file and why.
    public let cannotTell: String?

    /// Reads `service` and what it includes through `read` (a name as written after `include`,
    /// `substack` or `@include`, "other", or the service's own name -> its text; nil: no such
    /// file). Nil when neither the service nor "other" is there.
    public init?(service: String, type: String = "auth", read: (String) -> String?) {
        let got = withoutActuallyEscaping(read) { PamStack.read(service: service, type: type, read: $0) }
        guard let got else { return nil }
        self.type = type
        items = got.items
        cannotTell = got.cannotTell
    }

    /// pamstack_read over `read`: the lines nested, what it cannot tell; nil for no file at all.
    private static func read(service: String, type: String, read: @escaping (String) -> String?) -> (items: [Item], cannotTell: String?)? {
        let reading = Reading(read: read, type: type)
        var unknown = pamstack_unknown()
        let source = Unmanaged.passUnretained(reading).toOpaque()
        var files = pamstack_source(
            read: { context, name, buffer, size in
                let reading = Unmanaged<Reading>.fromOpaque(context!).takeUnretainedValue()
                guard let text = reading.read(String(cString: name!)) else { return Int(PAMSTACK_READ_MISSING) }
                let bytes = Array(text.utf8)
                let count = min(bytes.count, size)
                if count > 0 {
                    bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress!, byteCount: count) }
                }
                return count
            }, ctx: source)
        let result = withExtendedLifetime(reading) {
            pamstack_read(&files, service, type, { context, line in
                Unmanaged<Reading>.fromOpaque(context!).takeUnretainedValue().take(line!.pointee)
                return 0
            }, source, &unknown)
        }
        if result == PAMSTACK_NONE { return nil }
        var cannotTell: String? = nil
        if result == PAMSTACK_UNKNOWN {
            let file = withUnsafeBytes(of: &unknown.file) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            cannotTell = "\(file): \(String(cString: unknown.why))"
        } else if result == PAMSTACK_REFUSED {
            cannotTell = "\(service): refused by libpam"
        }
        return (reading.items(), cannotTell)
    }

    /// The reader's lines, nested: a substack's lines (one level down) as its frame.
    private final class Reading {
        let read: (String) -> String?
        let type: String
        var frames: [[Item]] = [[]]
        var heads: [PamLine] = []

        init(read: @escaping (String) -> String?, type: String) {
            self.read = read
            self.type = type
        }

        func take(_ line: pamstack_line) {
            close(to: Int(line.level))
            let file = String(cString: line.file)
            let control = String(cString: line.control)
            let module = String(cString: line.module)
            switch line.kind {
            case PAMSTACK_SUBSTACK:
                heads.append(PamLine(file: file, number: Int(line.number), type: type, control: control, module: module, args: []))
                frames.append([])
            case PAMSTACK_BROKEN:
                frames[frames.count - 1].append(.module(PamLine(brokenIn: file, number: Int(line.number), type: type, control: control)))
            default:
                let args = (0..<Int(line.argc)).map { String(cString: line.argv[$0]!) }
                frames[frames.count - 1].append(
                    .module(PamLine(file: file, number: Int(line.number), type: type, control: control, module: module, args: args)))
            }
        }

        private func close(to level: Int) {
            while frames.count - 1 > level {
                let inner = frames.removeLast()
                frames[frames.count - 1].append(.substack(heads.removeLast(), inner))
            }
        }

        func items() -> [Item] {
            close(to: 0)
            return frames[0]
        }
    }

    public init(type: String = "auth", items: [Item]) {
        self.type = type
        self.items = items
        cannotTell = nil
    }

    /// Every module line in the order libpam holds them (substacks in place).
    public var lines: [PamLine] {
        func flat(_ items: [Item]) -> [PamLine] {
            items.flatMap { item -> [PamLine] in
                switch item {
                case .module(let line): [line]
                case .substack(_, let inner): flat(inner)
                }
            }
        }
        return flat(items)
    }
}

/// A module's return value, in libpam's order (`_pam_token_returns`).
public enum PamResult: String, CaseIterable, Sendable {
    case success, openErr = "open_err", symbolErr = "symbol_err", serviceErr = "service_err", systemErr = "system_err"
    case bufErr = "buf_err", permDenied = "perm_denied", authErr = "auth_err", credInsufficient = "cred_insufficient"
    case authinfoUnavail = "authinfo_unavail", userUnknown = "user_unknown", maxtries, newAuthtokReqd = "new_authtok_reqd"
    case acctExpired = "acct_expired", sessionErr = "session_err", credUnavail = "cred_unavail", credExpired = "cred_expired"
    case credErr = "cred_err", noModuleData = "no_module_data", convErr = "conv_err", authtokErr = "authtok_err"
    case authtokRecoverErr = "authtok_recover_err", authtokLockBusy = "authtok_lock_busy"
    case authtokDisableAging = "authtok_disable_aging", tryAgain = "try_again", ignore, abort
    case authtokExpired = "authtok_expired", moduleUnknown = "module_unknown", badItem = "bad_item", convAgain = "conv_again"
    case incomplete
}

/// What libpam does with a module's result (`_PAM_ACTION_*`; a positive number skips lines).
public enum PamAction: Hashable, Sendable {
    case ignore, ok, done, bad, die, reset
    case jump(Int)
}

/// One line of a stack: where it is written, its control as libpam reads it, the module.
public struct PamLine: Equatable, Hashable, Sendable {
    public let file: String
    /// The line of `file` it starts on (1 = the first).
    public let number: Int
    public let type: String
    /// As written, without brackets.
    public let control: String
    /// As written (a path or a name); "" for a line libpam cannot use.
    public let module: String
    public let args: [String]
    /// A line libpam keeps but cannot run: it returns PAM_PERM_DENIED.
    public let broken: Bool
    let actions: [PamResult: PamAction]

    public init(file: String, number: Int, type: String = "auth", control: String, module: String, args: [String]) {
        self.file = file
        self.number = number
        self.type = type
        self.control = control
        self.module = module
        self.args = args
        broken = false
        actions = PamLine.actions(control)
    }

    init(brokenIn file: String, number: Int, type: String, control: String) {
        self.file = file
        self.number = number
        self.type = type
        self.control = control
        module = ""
        args = []
        broken = true
        actions = control.isEmpty ? PamLine.fill([:], .bad) : PamLine.actions(control)
    }

    /// The module's name: `/lib/security/pam_unix.so` -> `pam_unix` (libpam's
    /// extract_modulename: the base name up to its last dot).
    public var moduleName: String {
        let base = module.split(separator: "/").last.map(String.init) ?? module
        guard let dot = base.lastIndex(of: ".") else { return base }
        return String(base[..<dot])
    }

    /// The file name as written: `pam_fprintd.so`.
    public var moduleFile: String { module.split(separator: "/").last.map(String.init) ?? module }

    public func action(for result: PamResult) -> PamAction { actions[result] ?? .bad }

    /// libpam's reading of the control (pamstack.c's `pamstack_actions`, the module's reader):
    /// required, requisite, optional, sufficient (any case), else `value=action` pairs; a syntax
    /// error makes every value `bad`.
    static func actions(_ control: String) -> [PamResult: PamAction] {
        var table = [Int32](repeating: 0, count: Int(PAMSTACK_RESULTS))
        _ = table.withUnsafeMutableBufferPointer { pamstack_actions(control, $0.baseAddress!) }
        var out: [PamResult: PamAction] = [:]
        for (index, result) in PamResult.allCases.enumerated() {
            out[result] = action(table[index])
        }
        return out
    }

    static func fill(_ table: [PamResult: PamAction], _ action: PamAction) -> [PamResult: PamAction] {
        var table = table
        for result in PamResult.allCases where table[result] == nil { table[result] = action }
        return table
    }

    static func action(_ value: Int32) -> PamAction {
        switch value {
        case Int32(truncatingIfNeeded: PAMSTACK_IGNORE.rawValue): .ignore
        case Int32(truncatingIfNeeded: PAMSTACK_OK.rawValue): .ok
        case Int32(truncatingIfNeeded: PAMSTACK_DONE.rawValue): .done
        case Int32(truncatingIfNeeded: PAMSTACK_DIE.rawValue): .die
        case Int32(truncatingIfNeeded: PAMSTACK_RESET.rawValue): .reset
        case let jump where jump > 0: .jump(Int(jump))
        default: .bad
        }
    }
}
