import Foundation

/// A conversation saved as a JSON array of OpenAI-style messages (``Message/templateValue``).
///
/// Saving is atomic: a temporary file is written, flushed to disk and renamed over the old one,
/// so a crash mid-save leaves the old file or the new one, never a broken one. The temporary file
/// has a random name and is created new (`O_EXCL | O_NOFOLLOW`), so a link planted beside the
/// session is never written through; one a killed save leaves behind is removed by the next save.
/// Conversations are private: the file is 0600 after every save, and folders a save creates 0700.
public enum SessionFile {
    /// Reads the messages saved at `path`; a missing file is an empty conversation.
    public static func load(_ path: String) throws -> [Message] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LooplError(.sessionFile, "Cannot read the session file \(path).")
        }
        let value: JSONValue
        do { value = try JSONValue(parsing: data) } catch {
            throw LooplError(.sessionFile, "The session file \(path) is not valid JSON: \(error.message)")
        }
        guard let items = value.arrayValue else {
            throw LooplError(.sessionFile, "The session file \(path) must hold a JSON array of messages.")
        }
        return try items.map(Message.init(templateValue:))
    }

    /// Writes `messages` to `path` atomically, readable by its owner alone (mode 0600, whatever
    /// mode the file had); folders it creates on the way are 0700.
    public static func save(_ messages: [Message], to path: String) throws {
        let text = JSONValue.array(messages.map(\.templateValue)).jsonText(style: .python) + "\n"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try makeFolders(directory) }
        removeStaleTemporaries(of: path)
        let (temporary, fd) = try createTemporary(for: path)
        do {
            try writeAll(Array(text.utf8), to: fd, named: temporary)
            guard fsync(fd) == 0 else { throw failure("Cannot flush \(temporary) to disk") }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        guard close(fd) == 0 else {
            let error = failure("Cannot write \(temporary)")
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("Cannot replace \(path)")
            unlink(temporary)
            throw error
        }
        try syncFolder(directory.isEmpty ? "." : directory)
    }

    /// Creates a new temporary file beside `path`, with a name no one can guess: `O_EXCL` and
    /// `O_NOFOLLOW`, so that nothing planted there is written through. Returns its path and descriptor.
    static func createTemporary(for path: String) throws -> (String, Int32) {
        for _ in 0..<8 {
            let temporary = path + ".tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0, errno == EEXIST { continue }
            guard fd >= 0 else { throw failure("Cannot create \(temporary)") }
            // The umask may have taken bits from 0600; the file is its owner's to read and write.
            guard fchmod(fd, 0o600) == 0 else {
                let error = failure("Cannot set the mode of \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            return (temporary, fd)
        }
        throw LooplError(.sessionFile, "Cannot create a temporary file beside \(path): every name tried was taken.")
    }

    /// Creates `directory` and the folders above it that are missing, each 0700.
    static func makeFolders(_ directory: String) throws {
        var missing: [String] = []
        var folder = directory
        var info = stat()
        while !folder.isEmpty, folder != "/", stat(folder, &info) != 0, errno == ENOENT {
            missing.append(folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
        for folder in missing.reversed() where mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw failure("Cannot create the folder \(folder)")
        }
    }

    /// Writes every byte of `bytes` to `fd`.
    static func writeAll(_ bytes: [UInt8], to fd: Int32, named name: String) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw failure("Cannot write \(name)") }
            rest = rest.dropFirst(written)
        }
    }

    /// Flushes the folder's entries, so that the rename survives a crash.
    static func syncFolder(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("Cannot open the folder \(directory) to flush it") }
        // Some file systems cannot flush a folder (EINVAL); the rename stands all the same.
        let synced = fsync(fd) == 0 || errno == EINVAL
        let error = synced ? nil : failure("Cannot flush the folder \(directory) to disk")
        guard close(fd) == 0, synced else { throw error ?? failure("Cannot close the folder \(directory)") }
    }

    /// A `sessionFile` error: `what`, then the reason `errno` gives.
    static func failure(_ what: String) -> LooplError {
        LooplError(.sessionFile, "\(what): \(String(cString: strerror(errno))).")
    }

    /// Deletes the temporary files of saves to `path` by processes that no longer exist.
    static func removeStaleTemporaries(of path: String) {
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + ".tmp-"
        let directory = url.deletingLastPathComponent().path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            // `<file>.tmp-<pid>-<random>`, or `<file>.tmp-<pid>` from earlier versions.
            let owner = name.dropFirst(prefix.count).prefix { $0 != "-" }
            guard let pid = Int32(owner), pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { unlink(directory + "/" + name) }
        }
    }
}
