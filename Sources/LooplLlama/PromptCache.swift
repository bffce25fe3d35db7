import CLlama
import Foundation
import Loopl
import Synchronization

/// Prompt states saved on disk (`LOOPL_HOME/prompt-cache`), which a later request, in this
/// process or another, loads instead of evaluating the prompt they share.
///
/// After a prompt is evaluated, its sequence's state is copied (on the decode thread) and
/// written by a ``BackgroundWriter`` (nice 10: at 19 a save was not on disk before a 64-token
/// answer ended, and a crash during it lost the save), unless a saved prompt already holds all
/// but ``newTokens`` of it; the saved prompts it extends are removed where the new file serves
/// what they served (not on a windowed model: a file holds its last window only). A prompt that starts like
/// a saved one (its system prompt and tools, or its conversation up to the last message) loads
/// that state and drops what follows the shared part. Files are named after their
/// ``PromptCacheKey`` and only loaded under the same key; a file that is truncated, corrupt or of
/// another key is removed with a warning, and the prompt is evaluated. The cache is bounded: the
/// least recently used files go first.
final class PromptCache: @unchecked Sendable {
    // The decode thread calls it; the writer shares only `index` and `warned`, under their locks.

    /// The shortest prompt worth saving.
    static let minimumTokens = 128
    /// A saved prompt that holds all but this many tokens of a new one is enough.
    static let newTokens = 32

    let directory: String
    let key: PromptCacheKey
    /// The most bytes its files take.
    let bound: Int
    /// Writes every cache's files; a process that exits waits for the writes under way.
    private static let writer: BackgroundWriter = {
        atexit { PromptCache.writer.sync() }
        return BackgroundWriter(name: "loopl cache")
    }()
    /// The tokens of each file of this key, by name.
    private let index = Mutex<[String: [llama_token]]>([:])
    private let warned = Mutex<[String]>([])

    init?(configuration: LlamaModel.Configuration, contextSize: Int) {
        guard configuration.promptCache,
              let key = PromptCacheKey(model: configuration.model, contextSize: contextSize,
                                       parallel: configuration.resolvedParallel, batchSize: configuration.batchSize,
                                       keys: configuration.resolvedCacheTypeK, attention: configuration.flashAttention,
                                       alignment: configuration.alignment)
        else { return nil }
        self.directory = configuration.promptCacheDirectory ?? LooplHome.promptCacheDirectory
        self.key = key
        self.bound = max(configuration.promptCacheMiB, 0) << 20
    }

    /// The warnings given so far (the last 16).
    var warnings: [String] { warned.withLock { $0 } }

    /// The saved prompt that shares the most of `prompt`, at most `limit` tokens of it, among
    /// those whose state `usable(saved, shared)` serves the prompt from that point on: a file
    /// of `saved` tokens holds only the last window of a sliding-window model's windowed layers.
    func longestPrefix(of prompt: [llama_token], limit: Int, usable: (_ saved: Int, _ shared: Int) -> Bool) -> (name: String, length: Int)? {
        refresh()
        return index.withLock { index in
            index.map { ($0.key, $0.value.count, min(SequenceTable.commonPrefix($0.value, prompt), limit)) }
                .filter { $0.2 > 0 && usable($0.1, $0.2) }.max { $0.2 < $1.2 }
        }.map { (name: $0.0, length: $0.2) }
    }

    /// Loads the saved state `name` into `sequence` and keeps its first `length` tokens, which
    /// must be `prompt`'s; false (with a warning, the file removed and the sequence emptied) when
    /// the file cannot be used.
    func load(_ name: String, length: Int, prompt: [llama_token], into sequence: Int, context: OpaquePointer) -> Bool {
        let path = directory + "/" + name
        let memory = llama_get_memory(context)
        do throws(PromptCacheFile.Damage) {
            let bytes = try PromptCacheFile.contents(of: path, limit: bound)
            let header = try PromptCacheFile.header(bytes, fileSize: bytes.count)
            guard header.key == key.text else { throw .init(reason: "it was saved for another model or other settings") }
            guard SequenceTable.commonPrefix(header.tokens, prompt) >= length else { throw .init(reason: "its tokens changed") }
            let state = try PromptCacheFile.state(bytes, header: header)
            llama_memory_seq_rm(memory, llama_seq_id(sequence), -1, -1)
            let read = state.withUnsafeBufferPointer { llama_state_seq_set_data(context, $0.baseAddress, $0.count, llama_seq_id(sequence)) }
            guard read == state.count else { throw .init(reason: "llama.cpp could not load its state") }
            guard llama_memory_seq_rm(memory, llama_seq_id(sequence), llama_pos(length), -1) else {
                llama_memory_seq_rm(memory, llama_seq_id(sequence), -1, -1)
                return false
            }
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
            return true
        } catch {
            llama_memory_seq_rm(memory, llama_seq_id(sequence), -1, -1)
            discard(name, error)
            return false
        }
    }

    /// Saves the state of `sequence`, which holds `tokens`, unless a saved prompt holds nearly all
    /// of it; with `extending`, only when it extends a saved prompt (a conversation's answer after
    /// its prompt). It replaces the saved prompts it extends where `serves(saved, shared)` says
    /// that it serves every prompt they served (never on a windowed model, whose file holds only
    /// its last window).
    func save(sequence: Int, tokens: [llama_token], context: OpaquePointer, extending: Bool = false,
              serves: (_ saved: Int, _ shared: Int) -> Bool) {
        guard tokens.count >= Self.minimumTokens else { return }
        let (held, extends) = index.withLock { index in
            (index.values.map { SequenceTable.commonPrefix($0, tokens) }.max() ?? 0,
             index.values.contains { $0.count < tokens.count && SequenceTable.commonPrefix($0, tokens) == $0.count })
        }
        guard held < tokens.count, extending ? extends : held < tokens.count - Self.newTokens else { return }
        let size = llama_state_seq_get_size(context, llama_seq_id(sequence))
        guard size > 0, size < bound else { return }
        let state = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = llama_state_seq_get_data(context, buffer.baseAddress, size, llama_seq_id(sequence))
        }
        guard !state.isEmpty else { return }
        let name = key.fileStem + "-" + Self.hex(PromptCacheFile.checksum(tokens.withUnsafeBytes { Array($0) }[...])) + ".bin"
        let superseded = index.withLock { index in
            let older = index.filter {
                $0.key != name && $0.value.count <= tokens.count && SequenceTable.commonPrefix($0.value, tokens) == $0.value.count
                    && serves(tokens.count, $0.value.count)
            }
            for name in older.keys { index[name] = nil }
            index[name] = tokens
            return Array(older.keys)
        }
        let key = key.text
        Self.writer.async { [self, state] in
            write(PromptCacheFile.encode(key: key, tokens: tokens, state: state), as: name)
            for old in superseded { try? FileManager.default.removeItem(atPath: directory + "/" + old) }
            evict(keeping: name)
        }
    }

    /// Waits until the saves under way are written.
    func flush() {
        Self.writer.sync()
    }

    /// Reads the headers of this key's files that are not in the index yet, and forgets the
    /// files that are gone.
    private func refresh() {
        let names = Set(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix(key.fileStem + "-") && $0.hasSuffix(".bin") })
        let known = index.withLock { index in
            index = index.filter { names.contains($0.key) }
            return Set(index.keys)
        }
        for name in names.subtracting(known) {
            do throws(PromptCacheFile.Damage) {
                let header = try PromptCacheFile.header(at: directory + "/" + name)
                guard header.key == key.text else { throw .init(reason: "it was saved for another model or other settings") }
                index.withLock { $0[name] = header.tokens }
            } catch {
                discard(name, error)
            }
        }
    }

    /// Removes a file that cannot be used, with a warning.
    private func discard(_ name: String, _ damage: PromptCacheFile.Damage) {
        index.withLock { _ = $0.removeValue(forKey: name) }
        try? FileManager.default.removeItem(atPath: directory + "/" + name)
        warn("the prompt cache file \(directory)/\(name) was skipped and removed: \(damage.reason). The prompt is evaluated instead.")
    }

    private func warn(_ text: String) {
        warned.withLock { $0 = Array(($0 + [text]).suffix(16)) }
        Warnings.emit(text)
    }

    /// Writes `bytes` to a new file of mode 0600 and renames it to `name`, so that no reader
    /// sees half a file.
    private func write(_ bytes: [UInt8], as name: String) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let temporary = directory + "/." + name + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return warn("cannot write the prompt cache in \(directory): \(String(cString: strerror(errno))).") }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { raw in raw.baseAddress.map { Glibc.write(descriptor, $0 + done, raw.count - done) } ?? 0 }
            guard count > 0 else { break }
            done += count
        }
        close(descriptor)
        guard done == bytes.count, rename(temporary, directory + "/" + name) == 0 else {
            unlink(temporary)
            index.withLock { _ = $0.removeValue(forKey: name) }
            return warn("cannot write the prompt cache in \(directory) (the disk may be full).")
        }
    }

    /// Removes the least recently used files, of any key, until the cache is within its bound.
    private func evict(keeping kept: String) {
        var files = PromptCacheListing.entries(in: directory).sorted { $0.used < $1.used }
        var total = files.map(\.size).reduce(0, +)
        while total > bound, let oldest = files.first {
            files.removeFirst()
            guard oldest.name != kept else { continue }
            try? FileManager.default.removeItem(atPath: directory + "/" + oldest.name)
            index.withLock { _ = $0.removeValue(forKey: oldest.name) }
            total -= oldest.size
        }
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
