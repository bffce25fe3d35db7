import Foundation
import Loopl

/// One file of the prompt cache: the key it was saved under, the prompt tokens whose KV state it
/// holds, and that state (`llama_state_seq_get_data`), with a checksum over all of it.
///
/// Layout, little-endian: `LPPC`, format version (u32), key length (u32), key (UTF-8), token
/// count (u32), tokens (i32 each), state size (u64), checksum of the rest (u64), state.
package struct PromptCacheFile {
    static let magic = Array("LPPC".utf8)
    static let version: UInt32 = 1
    /// The longest key and the most tokens a header may declare; more is a corrupt file.
    static let maxKey = 4096
    static let maxTokens = 1 << 20

    /// What a file was saved under, and the tokens it holds.
    package struct Header: Equatable {
        package var key: String
        package var tokens: [Int32]
        /// The bytes before the checksum, which it covers with the state.
        var covered: Int
        /// Where the state starts in the file, and its size and checksum.
        var stateOffset: Int
        var stateSize: UInt64
        var checksum: UInt64
    }

    /// Why a file cannot be used.
    package struct Damage: Error {
        package let reason: String
    }

    /// The bytes of a file holding `state` for `tokens` under `key`.
    package static func encode(key: String, tokens: [Int32], state: [UInt8]) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(state.count + tokens.count * 4 + key.utf8.count + 40)
        append(version, to: &bytes)
        append(UInt32(key.utf8.count), to: &bytes)
        bytes += key.utf8
        append(UInt32(tokens.count), to: &bytes)
        for token in tokens { append(UInt32(bitPattern: token), to: &bytes) }
        append(UInt64(state.count), to: &bytes)
        let sum = checksum(state[...], seed: checksum(bytes[...]))
        append(sum, to: &bytes)
        bytes += state
        return bytes
    }

    /// Reads the header at the start of `bytes` (the whole file or its start); `fileSize` is
    /// the whole file's, checked against the state size it declares.
    static func header(_ bytes: [UInt8], fileSize: Int) throws(Damage) -> Header {
        var cursor = 0
        func read(_ count: Int) throws(Damage) -> ArraySlice<UInt8> {
            guard count >= 0, bytes.count - cursor >= count else { throw Damage(reason: "it is truncated") }
            defer { cursor += count }
            return bytes[cursor..<cursor + count]
        }
        func number(_ width: Int) throws(Damage) -> UInt64 {
            try read(width).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        guard Array(try read(4)) == magic else { throw Damage(reason: "it is not a prompt cache file") }
        guard try number(4) == UInt64(version) else { throw Damage(reason: "it has another format version") }
        let keyLength = Int(try number(4))
        guard keyLength <= maxKey else { throw Damage(reason: "its key is \(keyLength) bytes long") }
        let key = String(decoding: try read(keyLength), as: UTF8.self)
        let count = Int(try number(4))
        guard count <= maxTokens else { throw Damage(reason: "it declares \(count) tokens") }
        var tokens: [Int32] = []
        tokens.reserveCapacity(count)
        for _ in 0..<count { tokens.append(Int32(bitPattern: UInt32(try number(4)))) }
        let size = try number(8)
        let covered = cursor
        let sum = try number(8)
        guard UInt64(fileSize - cursor) == size else {
            throw Damage(reason: "it holds \(fileSize - cursor) bytes of state where its header says \(size)")
        }
        return Header(key: key, tokens: tokens, covered: covered, stateOffset: cursor, stateSize: size, checksum: sum)
    }

    /// The whole file at `path`, read straight into the array, at most `limit` bytes (for a
    /// 34.6 MB file, 20 ms where `FileManager` and the copy out of its `Data` took 51).
    static func contents(of path: String, limit: Int) throws(Damage) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Damage(reason: "it cannot be read") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Damage(reason: "it cannot be read") }
        let size = Int(status.st_size)
        guard size <= limit else { throw Damage(reason: "it is larger than the cache's bound") }
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size, let base = buffer.baseAddress {
                let read = Glibc.read(descriptor, base + count, size - count)
                guard read > 0 else { break }
                count += read
            }
        }
        guard bytes.count == size else { throw Damage(reason: "it cannot be read") }
        return bytes
    }

    /// The header of the file at `path`, reading no more than a header can hold.
    package static func header(at path: String) throws(Damage) -> Header {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Damage(reason: "it cannot be read") }
        defer { try? handle.close() }
        let fileSize = Int((try? handle.seekToEnd()) ?? 0)
        try? handle.seek(toOffset: 0)
        let limit = 4 + 4 + 4 + maxKey + 4 + maxTokens * 4 + 16
        let bytes = [UInt8]((try? handle.read(upToCount: min(fileSize, limit))) ?? Data())
        return try header(bytes, fileSize: fileSize)
    }

    /// The state in `bytes` (a whole file) after checking it against `header`'s size and checksum.
    static func state(_ bytes: [UInt8], header: Header) throws(Damage) -> ArraySlice<UInt8> {
        guard UInt64(bytes.count - header.stateOffset) == header.stateSize else { throw Damage(reason: "it is truncated") }
        let state = bytes[header.stateOffset...]
        guard checksum(state, seed: checksum(bytes[..<header.covered])) == header.checksum else { throw Damage(reason: "its checksum does not match: it is corrupt") }
        return state
    }

    /// A 64-bit FNV-1a checksum over 8-byte words (and the bytes left), for finding damage;
    /// `seed` chains it after the checksum of other bytes.
    static func checksum(_ bytes: ArraySlice<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 8
            for index in 0..<words {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* 0x100_0000_01b3
            }
            for index in words * 8..<raw.count { hash = (hash ^ UInt64(raw[index])) &* 0x100_0000_01b3 }
        }
        return hash
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
