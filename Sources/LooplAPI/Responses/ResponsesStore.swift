import Foundation
import Loopl

/// The finished responses kept for `GET /v1/responses/{id}` and `previous_response_id`: each
/// response object with the conversation that continues it (its input and its output as an
/// assistant turn).
///
/// At most ``maxCount`` responses and ``maxBytes`` bytes (of their JSON records) are kept; the
/// oldest go first. With a directory, each response is also a file `<id>.json` there (mode
/// 0600, the folder 0700), read back at start within the same bounds; a file that cannot be
/// read is skipped.
package actor ResponsesStore {
    /// One kept response.
    package struct Entry: Sendable {
        /// The response's id.
        package var id: String
        /// The response object, as `GET` answers it.
        package var response: JSONValue
        /// The conversation a continuation sends before its new input.
        package var conversation: [Message]

        /// An entry with every part given.
        package init(id: String, response: JSONValue, conversation: [Message]) {
            self.id = id
            self.response = response
            self.conversation = conversation
        }

        /// The record as it is written: `{"id", "response", "conversation"}`.
        package var record: JSONValue {
            ["id": .string(id), "response": response, "conversation": .array(conversation.map(\.templateValue))]
        }
    }

    /// The most responses kept by default.
    package static let defaultMaxCount = 1000
    /// The most bytes kept by default: 64 MiB.
    package static let defaultMaxBytes = 64 * 1024 * 1024

    /// The most responses kept.
    package let maxCount: Int
    /// The most bytes of records kept.
    package let maxBytes: Int
    /// The folder of the files; nil keeps responses in memory only.
    package let directory: String?
    private var entries: [String: (entry: Entry, bytes: Int)] = [:]
    private var order: [String] = []
    private var bytes = 0

    /// An empty store, or the one in `directory` (created 0700 when missing).
    package init(directory: String? = nil, maxCount: Int = defaultMaxCount, maxBytes: Int = defaultMaxBytes) throws {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
        self.directory = directory
        guard let directory else { return }
        try Self.prepare(directory)
        var kept: [String: (entry: Entry, bytes: Int)] = [:], order: [String] = [], total = 0
        for entry in Self.load(directory, maxBytes: maxBytes).reversed() {
            let size = entry.record.jsonText().utf8.count
            guard order.count < maxCount, total + size <= maxBytes else {
                unlink(Self.path(entry.id, in: directory))
                continue
            }
            kept[entry.id] = (entry, size)
            order.insert(entry.id, at: 0)
            total += size
        }
        (entries, self.order, bytes) = (kept, order, total)
    }

    /// True when `id` can name a stored response: `resp_` and 1 to 100 ASCII letters and digits.
    package static func isValidId(_ id: String) -> Bool {
        guard id.hasPrefix("resp_") else { return false }
        let rest = id.utf8.dropFirst(5)
        return (1...100).contains(rest.count) && rest.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
    }

    /// The number of responses kept.
    package var count: Int { order.count }

    /// The bytes of the records kept.
    package var byteCount: Int { bytes }

    /// Keeps `entry`, evicting the oldest beyond the bounds; an entry larger than ``maxBytes``
    /// alone, or with an invalid id, is not kept. Throws when its file cannot be written.
    package func put(_ entry: Entry) throws {
        guard Self.isValidId(entry.id) else { return }
        let text = entry.record.jsonText()
        guard text.utf8.count <= maxBytes else { return }
        if let directory { try Self.write(text, to: Self.path(entry.id, in: directory)) }
        _ = remove(entry.id, deleteFile: false)
        entries[entry.id] = (entry, text.utf8.count)
        order.append(entry.id)
        bytes += text.utf8.count
        evict()
    }

    /// The response `id`; nil when none is kept.
    package func get(_ id: String) -> Entry? {
        entries[id]?.entry
    }

    /// Removes the response `id` and its file; false when none was kept.
    @discardableResult
    package func remove(_ id: String) -> Bool {
        remove(id, deleteFile: true)
    }

    private func remove(_ id: String, deleteFile: Bool) -> Bool {
        guard let old = entries.removeValue(forKey: id) else { return false }
        order.removeAll { $0 == id }
        bytes -= old.bytes
        if deleteFile, let directory { unlink(Self.path(id, in: directory)) }
        return true
    }

    private func evict() {
        while order.count > maxCount || bytes > maxBytes, let oldest = order.first {
            _ = remove(oldest, deleteFile: true)
        }
    }

    private static func path(_ id: String, in directory: String) -> String {
        directory + "/" + id + ".json"
    }

    /// Creates the folder 0700, or makes an existing one 0700.
    private static func prepare(_ directory: String) throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw LooplError(.invalidConfiguration, "Cannot create serve.responsesDir \(directory): \(String(cString: strerror(errno))).")
        }
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, chmod(directory, 0o700) == 0 else {
            throw LooplError(.invalidConfiguration, "serve.responsesDir \(directory) is not a folder this user owns.")
        }
    }

    /// The records in `directory`, oldest first; unreadable and oversized files are skipped.
    private static func load(_ directory: String, maxBytes: Int) -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [(created: Int, entry: Entry)] = []
        for name in names where name.hasSuffix(".json") {
            let id = String(name.dropLast(5))
            let path = Self.path(id, in: directory)
            guard isValidId(id), let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = attributes[.size] as? Int, size <= maxBytes,
                  let data = FileManager.default.contents(atPath: path),
                  let record = try? JSONValue(parsing: Array(data)), record["id"]?.stringValue == id,
                  let response = record["response"], let turns = record["conversation"]?.arrayValue,
                  let conversation = try? turns.map(Message.init(templateValue:)) else { continue }
            found.append((response["created_at"]?.intValue ?? 0, Entry(id: id, response: response, conversation: conversation)))
        }
        return found.sorted { $0.created < $1.created }.map(\.entry)
    }

    /// Writes `text` to `path` through a temporary file created 0600, then renames it.
    private static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else {
            throw LooplError(.io, "Cannot write the stored response \(path): \(String(cString: strerror(errno))).")
        }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard result > 0 else { break }
            written += result
        }
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw LooplError(.io, "Cannot write the stored response \(path): the disk may be full.")
        }
    }
}
