import Glibc
import TouchAuthCore

/// The helper's dealings with the operating system: environment, syslog, files checked for
/// ownership and links (DESIGN.md §5), accounts.
enum System {
    /// Locale variables are the only ones kept (for gettext); everything else, above all
    /// `FP_*`, `G_*`, `GIO_*` and `LD_*`, goes before any library reads it.
    static let keptVariables = ["LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_CTYPE"]

    static func sanitizeEnvironment() {
        let kept = keptVariables.compactMap { name in getenv(name).map { (name, String(cString: $0)) } }
        clearenv()
        // Byte-wise: `contains("/")` compares Characters and misses a "/" glued to a mark before it.
        for (name, value) in kept where value.utf8.count <= 64 && !value.utf8.contains(UInt8(ascii: "/")) {
            setenv(name, value, 1)
        }
        umask(0o077)
    }

    static func openLog() { openlog("touchauth", LOG_PID, LOG_AUTHPRIV) }

    /// One line to syslog (`LOG_AUTHPRIV`). Never fingerprint data.
    static func log(_ priority: Int32, _ message: String) {
        withVaList([]) { vsyslog(priority, message.replacingPercents, $0) }
    }

    enum FileError: Error, Equatable, CustomStringConvertible {
        case missing(String)
        case unsafe(String, String)
        case io(String, Int32)

        var description: String {
            switch self {
            case .missing(let path): "\(path): no such file"
            case .unsafe(let path, let why): "\(path): refused: \(why)"
            case .io(let path, let code): "\(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Why a file or directory that configures or stores authentication data may not be
    /// trusted: not root's, or writable by group or others. Nil when it is fine.
    static func distrust(_ st: stat) -> String? {
        if st.st_uid != 0 { return "not owned by root" }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 { return "writable by group or others" }
        return nil
    }

    /// Reads a root-owned regular file, refusing links (`O_NOFOLLOW`) and anything larger than
    /// `maxBytes`.
    static func readTrustedFile(_ path: String, maxBytes: Int) throws(FileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { throw .missing(path) }
            if errno == ELOOP { throw .unsafe(path, "a symbolic link") }
            throw .io(path, errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io(path, errno) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw .unsafe(path, "not a regular file") }
        if let why = distrust(st) { throw .unsafe(path, why) }
        // 0 links: a writer renamed a new version over it after our open (System.writeAtomically,
        // another prompt of the same user): what we read is the whole previous version. Refusing
        // it made one of 20 parallel prompts a lockout ("state unusable") in CI's lockout.sh.
        guard st.st_nlink <= 1 else { throw .unsafe(path, "has other hard links") }
        guard Int(st.st_size) <= maxBytes else { throw .unsafe(path, "larger than \(maxBytes) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = retryingEINTR { bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) } }
            if n < 0 { throw .io(path, errno) }
            if n == 0 { break }
            count += n
        }
        guard count <= maxBytes else { throw .unsafe(path, "larger than \(maxBytes) bytes") }
        return Array(bytes[..<count])
    }

    /// Checks that a directory is a real directory (not a link) that root owns and only root
    /// may write. Returns false if it does not exist.
    static func checkTrustedDirectory(_ path: String) throws(FileError) -> Bool {
        var st = stat()
        if lstat(path, &st) != 0 {
            if errno == ENOENT { return false }
            throw .io(path, errno)
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw .unsafe(path, "not a directory") }
        if let why = distrust(st) { throw .unsafe(path, why) }
        return true
    }

    /// Directory entries, sorted, without `.` and `..`.
    static func listDirectory(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Creates each missing directory of `path` below `base` as root 0700.
    static func makeDirectories(_ path: String, below base: String) throws(FileError) {
        var current = base
        for component in path.dropFirst(base.count).split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST { throw .io(current, errno) }
            guard try checkTrustedDirectory(current) else { throw .missing(current) }
        }
    }

    /// Writes a file atomically: a temporary file beside it, fsync, rename, fsync the directory.
    /// `temporary` defaults to a name of this process's own; a caller that holds a lock may
    /// name one fixed temporary file (it is truncated, never followed if a link). Without
    /// `durable` the two fsyncs are skipped: the rename is still atomic and survives any kill of
    /// the process (the page cache has it); only a crash of the machine may lose it, or leave an
    /// empty file (for state: corrupt, so locked). For writes that only give something back.
    static func writeAtomically(
        _ bytes: [UInt8], to path: String, temporary: String? = nil, mode: mode_t, durable: Bool = true
    ) throws(FileError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let temporary = temporary ?? "\(path).tmp.\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .io(temporary, errno) }
        var written = 0
        while written < bytes.count {
            let n = retryingEINTR { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) } }
            if n <= 0 {
                let code = errno
                close(fd)
                unlink(temporary)
                throw .io(temporary, code)
            }
            written += n
        }
        let synced = !durable || fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            let failure = synced ? errno : code
            unlink(temporary)
            throw .io(path, failure)
        }
        guard durable else { return }
        let dirfd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
    }

    /// The account's uid, if the name is well-formed and the account exists.
    static func lookUpUser(_ name: String) -> (UserName, uid_t)? {
        guard let user = UserName(name) else { return nil }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return (user, entry.pw_uid)
    }

    static func userName(of uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return String(cString: entry.pw_name)
    }

    /// Writes all of `text` to a file descriptor, unbuffered (the shim relays each line as it
    /// arrives).
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = retryingEINTR { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Reads a file descriptor to its end, or fails past `maxBytes`.
    static func readAll(_ fd: Int32, maxBytes: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = retryingEINTR { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            if n < 0 { return nil }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            if bytes.count > maxBytes { return nil }
        }
    }
}

extension String {
    /// syslog takes a format string: a message is never one.
    fileprivate var replacingPercents: String { split(separator: "%", omittingEmptySubsequences: false).joined(separator: "%%") }
}

/// The one EINTR loop (after swift-system's `valueOrErrno`): calls `body` again while it fails
/// (a negative result) with EINTR, and returns its result, errno kept for the caller.
func retryingEINTR<T: SignedInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result >= 0 || errno != EINTR { return result }
    }
}
