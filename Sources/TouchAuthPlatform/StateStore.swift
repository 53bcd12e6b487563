// SPDX-License-Identifier: Apache-2.0
import CConfig
import Glibc
import TouchAuthCore

/// Per-user state files in `state_dir` (root 0700): `<uid>` (root 0600), replaced atomically,
/// changed only under an exclusive `flock` on `<uid>.lock` with a re-read, so two prompts at once
/// lose no strike. Keyed by uid, not name: a renamed account keeps its lockout.
package struct StateStore {
    package let directory: String

    package init(directory: String) { self.directory = directory }

    /// A state file that cannot be trusted: the caller treats the user as locked.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case unsafe(String)
        case corrupt(String)

        package var description: String {
            switch self {
            case .unsafe(let why): why
            case .corrupt(let why): "corrupt state: \(why)"
            }
        }
    }

    private func path(_ uid: uid_t) -> String { "\(directory)/\(uid)" }

    /// The state, or a fresh one when there is none yet.
    package func load(_ uid: uid_t) throws(Problem) -> UserState {
        do {
            guard try Files.checkTrustedDirectory(directory) else { return UserState() }
            let bytes = try Files.readTrustedFile(path(uid), maxBytes: 4096)
            return try UserState.decode(bytes)
        } catch let error as FileError {
            if case .missing = error { return UserState() }
            throw .unsafe(error.description)
        } catch let error as UserState.DecodeError {
            if case .corrupt(let why) = error { throw .corrupt("\(path(uid)): \(why)") }
            throw .corrupt(path(uid))
        } catch {
            throw .unsafe("\(error)")
        }
    }

    /// Locks, re-reads, applies `change`, writes atomically, unlocks. With `repair`, a corrupt
    /// or unsafe file is replaced by `change` applied to a fresh state (only `unlock` does that).
    /// `durable: false` skips the fsyncs (Files.writeAtomically): for a change that only gives
    /// back (StrikeSettlement.isDurable), which a crash of the machine may undo on the safe side.
    @discardableResult
    package func update(_ uid: uid_t, repair: Bool = false, durable: Bool = true, _ change: (inout UserState) -> Void) throws(Problem) -> UserState {
        do {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw FileError.io(directory, errno) }
            guard try Files.checkTrustedDirectory(directory) else { throw FileError.missing(directory) }
        } catch let error as FileError {
            throw .unsafe(error.description)
        } catch {
            throw .unsafe("\(error)")
        }
        // The module's SIGTERM (Termination) waits until the write is done, so a quick disk does not
        // lose a refund or a match's reset to it. SIGKILL, TA_STOP_GRACE_MS later, cannot wait:
        // a write it cuts short leaves the file as it was, which is why a strike is charged
        // before its scan (StrikeStore).
        var hold = sigset_t()
        var previous = sigset_t()
        sigemptyset(&hold)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&hold, signal) }
        sigprocmask(SIG_BLOCK, &hold, &previous)
        defer { sigprocmask(SIG_SETMASK, &previous, nil) }
        let lockPath = "\(path(uid)).lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw .unsafe("\(lockPath): \(String(cString: strerror(errno)))") }
        defer { close(lock) }  // releases the flock
        guard retryingEINTR({ flock(lock, LOCK_EX) }) == 0 else {
            throw .unsafe("flock \(lockPath): \(String(cString: strerror(errno)))")
        }
        var state: UserState
        do {
            state = try load(uid)
        } catch {
            guard repair else { throw error }
            Syslog.log(LOG_WARNING, "replacing unusable state for uid \(uid): \(error)")
            unlink(path(uid))
            state = UserState()
        }
        change(&state)
        do {
            // One temporary name per uid, written only under the lock: a writer killed midway
            // leaves at most this one file, which the next writer overwrites.
            try Files.writeAtomically(Array(state.encoded.utf8), to: path(uid), temporary: "\(path(uid)).tmp", mode: 0o600, durable: durable)
        } catch {
            throw .unsafe(error.description)
        }
        markLockout(uid, state)
        return state
    }

    /// Rewrites the lockout's marker from the state on disk, under the lock: for a locked state
    /// that has none (written before this release, or by hand), so the next prompt is the
    /// module's to refuse. Best effort, as the marker is.
    package func refreshLockoutMarker(_ uid: uid_t) {
        let lock = open("\(path(uid)).lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard lock >= 0 else { return }
        defer { close(lock) }
        guard retryingEINTR({ flock(lock, LOCK_EX) }) == 0, let state = try? load(uid) else { return }
        markLockout(uid, state)
    }
}

extension StateStore {
    /// The lockout as the module sees it without starting the helper (pam/lockout.c,
    /// docs/POLICY.md#the-state-store): `<uid>.locked`, one line that names the state file that
    /// locked by its inode and ctime (which only the kernel sets) and gives its `locked_at` and strikes (for the audit line):
    /// `<ino> <ctime s> <ctime ns> <locked_at> <strikes>`. Any later change of the state file is a new inode
    /// (writeAtomically), so a marker left behind (a crash, a state file removed by hand) names a
    /// file that is gone, and the helper decides. It can only refuse: no marker, or one that does
    /// not match, and the helper reads the state as always.
    func lockoutMarker(_ uid: uid_t) -> String { "\(directory)/\(uid)\(TA_LOCKED_SUFFIX)" }

    /// After a write, under the lock: a marker for a locked state, none for any other. Best
    /// effort: without it the helper decides, as before.
    private func markLockout(_ uid: uid_t, _ state: UserState) {
        let marker = lockoutMarker(uid)
        var st = stat()
        guard let lockedAt = state.lockedAt, lstat(path(uid), &st) == 0 else {
            unlink(marker)
            return
        }
        var buffer = [CChar](repeating: 0, count: Int(TA_MARKER_MAX))
        _ = ta_marker_line(
            &buffer, buffer.count, UInt64(st.st_ino), Int64(st.st_ctim.tv_sec), Int64(st.st_ctim.tv_nsec), Int64(lockedAt),
            Int64(state.strikes))
        let line = String(cString: buffer)
        do {
            try Files.writeAtomically(Array(line.utf8), to: marker, temporary: "\(marker).tmp", mode: 0o600, durable: false)
        } catch {
            unlink(marker)
            Syslog.log(LOG_WARNING, "cannot mark the lockout of uid \(uid): \(error)")
        }
    }
}

extension StateStore {
    /// `touchauth disable`'s marker, `<uid>.disabled` beside the state file.
    func disabledMarker(_ uid: uid_t) -> String { "\(directory)/\(uid)\(TA_DISABLED_SUFFIX)" }

    /// Whether the user switched the fingerprint off. Anything at the marker's path counts.
    package func isDisabled(_ uid: uid_t) -> Bool {
        var st = stat()
        return lstat(disabledMarker(uid), &st) == 0
    }

    package func setDisabled(_ uid: uid_t, _ disabled: Bool) throws(CommandError) {
        let path = disabledMarker(uid)
        do {
            if disabled {
                if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw FileError.io(directory, errno) }
                guard try Files.checkTrustedDirectory(directory) else { throw FileError.missing(directory) }
                try Files.writeAtomically(Array("disabled\n".utf8), to: path, mode: 0o600)
            } else if unlink(path) != 0 && errno != ENOENT {
                throw FileError.io(path, errno)
            }
        } catch let error as FileError {
            throw .failed(error.description)
        } catch {
            throw .failed("\(error)")
        }
    }
}
