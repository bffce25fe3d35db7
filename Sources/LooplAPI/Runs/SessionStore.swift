import Foundation
import Loopl

/// The conversations of `/loopl/v1/runs`, saved under a folder: `ID.json` holds the messages (the
/// file `loopl run --session` reads), `ID.meta.json` its title and model. Files are 0600, the
/// folder 0700.
package struct SessionStore: Sendable {
    /// A saved conversation's summary.
    package struct Summary: Sendable, Hashable {
        package var id: String
        package var title: String
        package var model: String
        /// Seconds since 1970 of the last save.
        package var updated: Int

        package var json: JSONValue {
            ["id": .string(id), "title": .string(title), "model": .string(model), "updated": .integer(updated)]
        }
    }

    package let directory: String

    /// The store at `directory`, else `$XDG_DATA_HOME/loopl/sessions` (`~/.local/share/loopl/sessions`).
    package init(directory: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let directory {
            self.directory = directory
        } else {
            let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
            self.directory = data + "/loopl/sessions"
        }
    }

    /// True when `id` can name a session: 1 to 64 ASCII letters, digits, `-` or `_`.
    package static func isValidId(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 || $0 == 95
        }
    }

    /// A new, unused id.
    package static func newId() -> String {
        "s" + String(Int(Date().timeIntervalSince1970), radix: 36) + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    private func path(_ id: String) -> String { directory + "/" + id + ".json" }
    private func metaPath(_ id: String) -> String { directory + "/" + id + ".meta.json" }

    /// True when the session `id` is saved.
    package func exists(_ id: String) -> Bool {
        Self.isValidId(id) && FileManager.default.fileExists(atPath: path(id))
    }

    /// The messages of `id`; a 404 when there is no such session.
    package func messages(_ id: String) throws(APIError) -> [Message] {
        guard exists(id) else { throw Self.notFound(id) }
        do { return try SessionFile.load(path(id)) } catch {
            throw .internalError("The session \(id) cannot be read: \((error as? LooplError)?.message ?? "\(error)")")
        }
    }

    /// The summary of `id`, nil when it is not saved.
    package func summary(_ id: String) -> Summary? {
        guard exists(id) else { return nil }
        let meta = FileManager.default.contents(atPath: metaPath(id)).flatMap { try? JSONValue(parsing: $0) }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path(id))
        let date = (attributes?[.modificationDate] as? Date) ?? Date(timeIntervalSince1970: 0)
        return Summary(id: id, title: meta?["title"]?.stringValue ?? id, model: meta?["model"]?.stringValue ?? "",
                       updated: Int(date.timeIntervalSince1970))
    }

    /// Every saved session, newest first (at most `limit`).
    package func list(limit: Int = 1000) -> [Summary] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let ids = names.compactMap { name -> String? in
            guard name.hasSuffix(".json"), !name.hasSuffix(".meta.json") else { return nil }
            let id = String(name.dropLast(5))
            return Self.isValidId(id) ? id : nil
        }
        return ids.compactMap(summary).sorted { ($0.updated, $0.id) > ($1.updated, $1.id) }.prefix(limit).map { $0 }
    }

    /// Saves the messages of `id` (0600, atomically), and its title and model when `title` is given.
    package func save(_ id: String, messages: [Message], title: String? = nil, model: String? = nil) throws {
        try makeFolder()
        if let title {
            let meta: JSONValue = ["title": .string(title), "model": .string(model ?? "")]
            try writePrivate(Array((meta.jsonText() + "\n").utf8), to: metaPath(id))
        }
        try SessionFile.save(messages, to: path(id))
    }

    /// Deletes `id`; a 404 when there is no such session.
    package func delete(_ id: String) throws(APIError) {
        guard exists(id) else { throw Self.notFound(id) }
        unlink(path(id))
        unlink(metaPath(id))
    }

    /// The 404 for a session that is not saved.
    package static func notFound(_ id: String) -> APIError {
        APIError(status: 404, type: "invalid_request_error", code: "session_not_found",
                 message: "There is no session '\(id.prefix(80))': list the saved ones at GET /loopl/v1/sessions.", param: "session")
    }

    /// The title of a conversation whose first prompt is `prompt`: its first line, at most 80 characters.
    package static func title(of prompt: String) -> String {
        let line = prompt.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "Untitled" }
        return trimmed.count > 80 ? String(trimmed.prefix(79)) + "…" : trimmed
    }

    private func makeFolder() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// Writes `bytes` to `target` through a new 0600 file renamed over it.
    private func writePrivate(_ bytes: [UInt8], to target: String) throws {
        let temporary = target + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw LooplError(.sessionFile, "Cannot create \(temporary): \(String(cString: strerror(errno))).") }
        fchmod(fd, 0o600)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, target) == 0 else {
            unlink(temporary)
            throw LooplError(.sessionFile, "Cannot write \(target).")
        }
    }
}
