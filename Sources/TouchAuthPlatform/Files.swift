// SPDX-License-Identifier: Apache-2.0
import Glibc
import TouchAuthCore

/// Files that configure or store authentication data, checked for ownership and links
/// (SECURITY.md#root-owned-files), written atomically; and whole reads and writes of a file descriptor.
package enum Files {
    /// Why a file or directory that configures or stores authentication data may not be
    /// trusted: not root's, or writable by group or others. Nil when it is fine.
    package static func distrust(_ st: stat) -> String? {
        if st.st_uid != 0 { return "not owned by root" }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 { return "writable by group or others" }
        return nil
    }

    /// Reads a root-owned regular file, refusing links (`O_NOFOLLOW`) and anything larger than
    /// `maxBytes`.
    package static func readTrustedFile(_ path: String, maxBytes: Int) throws(FileError) -> [UInt8] {
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
        // 0 links is fine: a writer renamed a new version over it after our open (writeAtomically,
        // another prompt of the same user), and what we read is the whole previous version.
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
    package static func listDirectory(_ path: String) -> [String] {
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

    /// Writes all of `text` to a file descriptor, unbuffered (the shim relays each line as it
    /// arrives).
    package static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = retryingEINTR { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Reads a file descriptor to its end, or fails past `maxBytes`.
    package static func readAll(_ fd: Int32, maxBytes: Int) -> [UInt8]? {
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
