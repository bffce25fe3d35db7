import Foundation

/// Ways to damage a GGUF file for the bad-input tests: cut it, or overwrite one metadata value or
/// one tensor's description in place (found by its key or tensor name, so no parser is needed).
public enum GGUFCorruption: String, Sendable, CaseIterable, CustomStringConvertible {
    case truncatedInTensors, truncatedInWeights, lastByteMissing
    case layers1000, embedding7, kvHeads0, tokenCountPlus1000
    case tensorType99, tensorOffsetHuge, tensorDimensionsHuge, tensorRank9

    public var description: String { rawValue }

    /// `model` damaged this way; nil when the model lacks the key or tensor it changes.
    public func apply(to model: Data) -> Data? {
        var bytes = [UInt8](model)
        switch self {
        case .truncatedInTensors: return model.prefix(1 << 20)
        case .truncatedInWeights: return model.prefix(model.count / 2)
        case .lastByteMissing: return model.dropLast()
        case .layers1000: return Self.value(of: "llama.block_count", in: &bytes, UInt32(1000))
        case .embedding7: return Self.value(of: "llama.embedding_length", in: &bytes, UInt32(7))
        case .kvHeads0: return Self.value(of: "llama.attention.head_count_kv", in: &bytes, UInt32(0))
        case .tokenCountPlus1000:
            // The value is: element type (4 bytes), then the count.
            guard let at = Self.valueOffset("tokenizer.ggml.tokens", in: bytes) else { return nil }
            return Self.write(Self.read(UInt64.self, bytes, at: at + 4) + 1000, into: &bytes, at: at + 4)
        case .tensorType99, .tensorOffsetHuge, .tensorDimensionsHuge, .tensorRank9:
            // After the name: rank (4 bytes), that many dimensions (8 each), type (4), offset (8).
            guard let at = Self.afterString("token_embd.weight", in: bytes) else { return nil }
            let rank = Int(Self.read(UInt32.self, bytes, at: at))
            switch self {
            case .tensorType99: return Self.write(UInt32(99), into: &bytes, at: at + 4 + 8 * rank)
            case .tensorOffsetHuge: return Self.write(UInt64(1) << 40, into: &bytes, at: at + 8 + 8 * rank)
            case .tensorDimensionsHuge: return Self.write(UInt64(1) << 40, into: &bytes, at: at + 4)
            default: return Self.write(UInt32(9), into: &bytes, at: at)
            }
        }
    }

    /// A GGUF file whose metadata is one key, `general.bomb`, holding an array of `count` one-byte
    /// elements, and no tensors: small on disk, about 25 times larger once read as values.
    public static func amplifyingArray(count: Int) -> Data {
        var bytes = Array("GGUF".utf8)
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        put(UInt32(3))
        put(UInt64(0))
        put(UInt64(1))
        let key = "general.bomb"
        put(UInt64(key.utf8.count))
        bytes += Array(key.utf8)
        put(UInt32(9))
        put(UInt32(0))
        put(UInt64(count))
        bytes += [UInt8](repeating: 7, count: count)
        return Data(bytes)
    }

    /// The offset just after a GGUF string (8-byte length, then the bytes) equal to `text`.
    static func afterString(_ text: String, in bytes: [UInt8]) -> Int? {
        var pattern: [UInt8] = []
        withUnsafeBytes(of: UInt64(text.utf8.count).littleEndian) { pattern += $0 }
        pattern += Array(text.utf8)
        guard let range = Data(bytes).range(of: Data(pattern)) else { return nil }
        return range.upperBound
    }

    /// The offset of `key`'s value (after its 4-byte type).
    static func valueOffset(_ key: String, in bytes: [UInt8]) -> Int? { afterString(key, in: bytes).map { $0 + 4 } }

    static func value<T: FixedWidthInteger>(of key: String, in bytes: inout [UInt8], _ value: T) -> Data? {
        guard let at = valueOffset(key, in: bytes) else { return nil }
        return write(value, into: &bytes, at: at)
    }

    static func read<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        (0..<MemoryLayout<T>.size).reduce(T.zero) { $0 | T(bytes[offset + $1]) << (8 * $1) }
    }

    static func write<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at offset: Int) -> Data {
        for index in 0..<MemoryLayout<T>.size { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        return Data(bytes)
    }
}
