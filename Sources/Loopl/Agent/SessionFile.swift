import Foundation

/// A conversation saved as a JSON array of OpenAI-style messages (``Message/templateValue``).
///
/// Saving is atomic: a temporary file is written, flushed to disk and renamed over the old one,
/// so a crash mid-save leaves the old file or the new one, never a broken one. The temporary file
/// a killed save leaves behind is removed by the next save.
public enum SessionFile {
    /// Reads the messages saved at `path`; a missing file is an empty conversation.
    public static func load(_ path: String) throws -> [Message] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LooplError(.sessionFile, "Cannot read the session file \(path).")
        }
        let value: JSONValue
        do { value = try JSONValue(parsing: data) } catch let error as LooplError {
            throw LooplError(.sessionFile, "The session file \(path) is not valid JSON: \(error.message)")
        }
        guard let items = value.arrayValue else {
            throw LooplError(.sessionFile, "The session file \(path) must hold a JSON array of messages.")
        }
        return try items.map(Message.init(templateValue:))
    }

    /// Writes `messages` to `path` atomically.
    public static func save(_ messages: [Message], to path: String) throws {
        let text = JSONValue.array(messages.map(\.templateValue)).jsonText(style: .python) + "\n"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        removeStaleTemporaries(of: path)
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw LooplError(.sessionFile, "Cannot write \(temporary): \(String(cString: strerror(errno))).")
        }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                close(fd)
                unlink(temporary)
                throw LooplError(.sessionFile, "Cannot write \(temporary): \(String(cString: strerror(errno))).")
            }
            bytes = bytes.dropFirst(written)
        }
        fsync(fd)
        close(fd)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw LooplError(.sessionFile, "Cannot replace \(path): \(String(cString: strerror(errno))).")
        }
    }

    /// Deletes the temporary files of saves to `path` by processes that no longer exist.
    static func removeStaleTemporaries(of path: String) {
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + ".tmp-"
        let directory = url.deletingLastPathComponent().path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { unlink(directory + "/" + name) }
        }
    }
}
