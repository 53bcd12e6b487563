// SPDX-License-Identifier: Apache-2.0
import CProcess
import Glibc
import TouchAuthCore

/// A reader is armed for one request at a time, machine-wide (docs/POLICY.md#one-request-at-a-time,
/// SECURITY.md#one-request): the registry of armed prompts in `/run/touchauth` (root 0700, a
/// tmpfs: nothing survives a reboot). One file per armed prompt, named by the helper's pid
/// (TouchAuthCore/ArmedRequest), written before any reader is opened and removed when the prompt
/// ends; `<pid>.ended` is the note of the prompt that ended it. Every change is made under an
/// exclusive `flock` on `lock`, so two prompts arming at once cannot both arm.
///
/// An entry counts only while its process lives with the start time the entry names (a pid
/// reused since is another process), and is not a zombie; one that does not count is removed.
/// The helper runs as root (or setuid root): the directory is root's alone, and nothing a user
/// writes or sets reaches it but through a prompt of their own.
package enum ArmedRegistry {
    package static let directory = "/run/touchauth"
    static var lockPath: String { "\(directory)/lock" }

    /// What came of asking to arm.
    package enum Arming {
        /// Registered: this prompt may open its readers; `disarm()` when it ends.
        case armed(Registration)
        /// Others were armed: they are being ended (their notes written, SIGTERM sent); this
        /// prompt must not arm.
        case overlap([ArmedRequest])
        /// The registry cannot be trusted or used: this prompt must not arm (the password).
        case unusable(String)
    }

    /// This prompt's entry, until `disarm()`.
    package final class Registration {
        package let me: ArmedRequest

        init(_ me: ArmedRequest) { self.me = me }

        /// The prompt that ended this one, if one did.
        package var endedBy: ArmedRequest? { ArmedRegistry.read(ArmedRegistry.notePath(me.pid)) }

        /// Removes the entry and its note (under the lock where it can be had).
        package func disarm() {
            let lock = try? ArmedRegistry.lock()
            unlink(ArmedRegistry.entryPath(me.pid))
            unlink(ArmedRegistry.notePath(me.pid))
            if let lock { close(lock) }
        }
    }

    static func entryPath(_ pid: Int32) -> String { "\(directory)/\(pid)" }
    static func notePath(_ pid: Int32) -> String { "\(directory)/\(pid).ended" }

    /// This helper's entry: its own pid and start time, its host's terminal (else the request's
    /// display, else its service), the time now.
    package static func current(uid: uid_t, line: String, service: String, display: String? = nil) -> ArmedRequest? {
        guard let mine = ProcessFacts.of(getpid()) else { return nil }
        let host = getppid()
        let place = ProcessFacts.of(host).flatMap { ProcessFacts.terminalName($0.tty) } ?? display ?? service
        return ArmedRequest(pid: getpid(), start: mine.start, host: host, uid: uid, since: boottimeMilliseconds(),
                            place: place, line: line)
    }

    /// Under the lock: the armed entries that count (others removed); none: `me` is written and
    /// armed; some: each gets the note that `me` ended it and a SIGTERM, and `me` is not armed.
    package static func arm(_ me: ArmedRequest) -> Arming {
        let fd: Int32
        do { fd = try lock() } catch { return .unusable(error.description) }
        defer { close(fd) }
        let others = live().filter { $0.pid != me.pid }
        if !others.isEmpty {
            for other in others { end(other, by: me) }
            return .overlap(others)
        }
        do {
            try Files.writeAtomically(me.encoded, to: entryPath(me.pid), mode: 0o600, durable: false)
        } catch {
            return .unusable(error.description)
        }
        return .armed(Registration(me))
    }

    /// The armed requests that count, for `touchauth status` and `doctor` (root only).
    package static func list() throws(FileError) -> [ArmedRequest] {
        let fd = try lock()
        defer { close(fd) }
        return live()
    }

    /// The directory (made root 0700 if missing, refused unless it is root's alone) and the
    /// lock, held exclusively. A holder that does not let go within 2 s (a stopped setuid
    /// helper): unusable, the password.
    static func lock() throws(FileError) -> Int32 {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw .io(directory, errno) }
        var st = stat()
        guard lstat(directory, &st) == 0 else { throw .io(directory, errno) }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw .unsafe(directory, "not a directory") }
        guard st.st_uid == 0 else { throw .unsafe(directory, "not owned by root") }
        guard st.st_mode & 0o077 == 0 else { throw .unsafe(directory, "open to group or others") }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw errno == ELOOP ? .unsafe(lockPath, "a symbolic link") : .io(lockPath, errno) }
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            tries += 1
            guard code == EWOULDBLOCK || code == EINTR, tries < 200 else {
                close(fd)
                throw .io(lockPath, code)
            }
            usleep(10_000)
        }
        return fd
    }

    /// Every entry that counts: its process alive with its start time, not ended by a note.
    /// What does not count (a dead or reused pid, a file that is not an entry) is removed.
    static func live() -> [ArmedRequest] {
        var found: [ArmedRequest] = []
        let names = Files.listDirectory(directory)
        for name in names where name != "lock" {
            let path = "\(directory)/\(name)"
            if let pid = Int32(name), pid > 0, String(pid) == name {
                guard let entry = read(path), entry.pid == pid, alive(entry) else {
                    unlink(path)
                    unlink(notePath(pid))
                    continue
                }
                // Ended by another prompt, not gone yet: it no longer waits for a finger.
                if access(notePath(pid), F_OK) == 0 { continue }
                found.append(entry)
            } else if name.hasSuffix(".ended"), let pid = Int32(name.dropLast(6)), String(pid) + ".ended" == name {
                if !names.contains(String(pid)) { unlink(path) }
            } else {
                unlink(path)  // (a temporary file of a helper that died mid-write)
            }
        }
        return found.sorted { $0.since < $1.since }
    }

    /// The process the entry names is the one that wrote it, and runs.
    static func alive(_ entry: ArmedRequest) -> Bool {
        guard let facts = ProcessFacts.of(entry.pid) else { return false }
        return facts.start == entry.start && facts.state != "Z" && facts.state != "X"
    }

    static func read(_ path: String) -> ArmedRequest? {
        guard let bytes = try? Files.readTrustedFile(path, maxBytes: ArmedRequest.maxBytes) else { return nil }
        return try? ArmedRequest.decode(bytes)
    }

    /// The note first (the other prompt learns who ended it), then SIGTERM through a pidfd
    /// whose process is checked to be the entry's: never a pid reused in between.
    static func end(_ other: ArmedRequest, by me: ArmedRequest) {
        do {
            try Files.writeAtomically(me.encoded, to: notePath(other.pid), mode: 0o600, durable: false)
        } catch {
            Syslog.log(LOG_ERR, "cannot note the end of pid \(other.pid): \(error)")
        }
        let pidfd = touchauth_pidfd_open(other.pid)
        defer { if pidfd >= 0 { close(pidfd) } }
        guard alive(other) else { return }
        if pidfd >= 0 {
            _ = touchauth_pidfd_send_signal(pidfd, SIGTERM)
        } else {
            kill(other.pid, SIGTERM)  // (a kernel without pidfds: checked just above)
        }
    }

    /// Whether a prompt of `uid` may be told what `other` was (its line, its place): only a
    /// root-run prompt of the same uid. Another user's line is theirs (a command line can hold a
    /// secret); a restricted caller (the setuid helper a user starts, SECURITY.md#restricted-mode)
    /// reads the reply on its own stdout. The log (`LOG_AUTHPRIV`, root's) keeps both in full.
    package static func mayShow(_ other: ArmedRequest, to uid: uid_t, restricted: Bool) -> Bool {
        !restricted && other.uid == uid
    }

    /// For the log: the helper's and the host's pids, the uid, the place and the line.
    package static func describe(_ entry: ArmedRequest) -> String {
        "pid \(entry.pid) (host \(entry.host), uid \(entry.uid), \(entry.place): \(entry.line))"
    }

    package static func boottimeMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}

/// What the kernel says of a process in /proc/PID/stat.
package struct ProcessFacts {
    package let state: Character
    package let tty: Int
    package let start: UInt64

    package static func of(_ pid: Int32) -> ProcessFacts? {
        guard pid > 0, let bytes = try? readProc("/proc/\(pid)/stat"),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")),
              let text = String(validating: bytes[(close + 1)...], as: UTF8.self)
        else { return nil }
        // After the command's ")": state (field 3), ..., tty_nr (7), ..., starttime (22).
        let fields = text.split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let tty = Int(fields[4]), let start = UInt64(fields[19])
        else { return nil }
        return ProcessFacts(state: state, tty: tty, start: start)
    }

    /// `pts/N`, `ttyN`, `ttySN`; nil for no terminal; `tty M:N` for another device.
    package static func terminalName(_ tty: Int) -> String? {
        guard tty != 0 else { return nil }
        let major = (tty >> 8) & 0xfff
        let minor = (tty & 0xff) | ((tty >> 12) & 0xfff00)
        switch major {
        case 136...143: return "pts/\((major - 136) * 256 + minor)"
        case 4 where minor < 64: return "tty\(minor)"
        case 4: return "ttyS\(minor - 64)"
        default: return "tty \(major):\(minor)"
        }
    }

    private static func readProc(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.io(path, errno) }
        defer { Glibc.close(fd) }
        return Files.readAll(fd, maxBytes: 4096) ?? []
    }
}
