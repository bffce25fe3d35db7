import Foundation

/// Reads the GGUF header and key/value section from bytes, checking every length against what is
/// left, and what the values take in memory against a budget.
struct GGUFReader {
    private let data: Data
    private let name: String
    private var offset = 0
    private var key = "the header"
    /// The memory the values read so far take, as counted against `budget`.
    private var held = 0
    private let budget: Int
    static let maxArrayDepth = 8
    /// The most memory the metadata may take once read: 256 MiB, ten times a large vocabulary's.
    /// A value in memory is larger than in the file (a one-byte array element takes
    /// `MemoryLayout<GGUFValue>.stride`), so the file's size alone does not bound it.
    static let defaultBudget = 256 << 20

    init(data: Data, name: String, budget: Int = GGUFReader.defaultBudget) {
        self.data = data
        self.name = name
        self.budget = budget
    }

    /// Counts `bytes` more as held; an error once past the budget, before they are allocated.
    private mutating func hold(_ bytes: Int) throws {
        held += bytes
        guard held <= budget else {
            throw LooplError(.invalidModel, "\(name)'s metadata would take more than \(budget / 1024 / 1024) MiB of memory (reading \(key)); Loopl does not load it. Use a model file from a trusted source.")
        }
    }

    private func truncated() -> LooplError {
        LooplError(.invalidModel, "\(name) is truncated or corrupt: its metadata ends at byte \(data.count) while reading \(key). Download the model again.")
    }

    private func corrupt(_ reason: String) -> LooplError {
        LooplError(.invalidModel, "\(name) is corrupt: \(reason) (at byte \(offset), reading \(key)). Download the model again.")
    }

    private mutating func bytes(_ count: Int) throws -> Data {
        guard count >= 0, count <= data.count - offset else { throw truncated() }
        let start = data.startIndex + offset
        offset += count
        return data[start..<start + count]
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let chunk = try bytes(MemoryLayout<T>.size)
        var value: T = 0
        for (i, byte) in chunk.enumerated() { value |= T(truncatingIfNeeded: byte) << (8 * i) }
        return value
    }

    private mutating func count(elementSize: Int) throws -> Int {
        let raw = try integer(UInt64.self)
        guard raw <= UInt64(data.count - offset) / UInt64(max(elementSize, 1)) else { throw truncated() }
        return Int(raw)
    }

    private mutating func string() throws -> String {
        let length = try count(elementSize: 1)
        try hold(length)
        return String(decoding: try bytes(length), as: UTF8.self)
    }

    private mutating func value(type: UInt32, depth: Int) throws -> GGUFValue {
        switch type {
        case 0: return .uint8(try integer(UInt8.self))
        case 1: return .int8(try integer(Int8.self))
        case 2: return .uint16(try integer(UInt16.self))
        case 3: return .int16(try integer(Int16.self))
        case 4: return .uint32(try integer(UInt32.self))
        case 5: return .int32(try integer(Int32.self))
        case 6: return .float32(Float(bitPattern: try integer(UInt32.self)))
        case 7:
            let byte = try integer(UInt8.self)
            guard byte <= 1 else { throw corrupt("a boolean holds \(byte)") }
            return .bool(byte == 1)
        case 8: return .string(try string())
        case 9:
            guard depth < Self.maxArrayDepth else { throw corrupt("arrays nested deeper than \(Self.maxArrayDepth) levels") }
            let elementType = try integer(UInt32.self)
            let sizes: [UInt32: Int] = [0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 8: 8, 9: 12, 10: 8, 11: 8, 12: 8]
            guard let size = sizes[elementType] else { throw corrupt("an array has unknown element type \(elementType)") }
            let n = try count(elementSize: size)
            try hold(n * MemoryLayout<GGUFValue>.stride)
            var elements: [GGUFValue] = []
            elements.reserveCapacity(n)
            for _ in 0..<n { elements.append(try value(type: elementType, depth: depth + 1)) }
            return .array(elementType: elementType, elements)
        case 10: return .uint64(try integer(UInt64.self))
        case 11: return .int64(try integer(Int64.self))
        case 12: return .float64(Double(bitPattern: try integer(UInt64.self)))
        default: throw corrupt("unknown value type \(type)")
        }
    }

    mutating func read() throws -> (version: UInt32, tensorCount: UInt64, keys: [String], values: [String: GGUFValue]) {
        guard data.count >= 4 else { throw LooplError(.invalidModel, "\(name) is not a GGUF model: it is only \(data.count) bytes long.") }
        guard try bytes(4) == Data("GGUF".utf8) else {
            throw LooplError(.invalidModel, "\(name) is not a GGUF model (it does not start with 'GGUF'). Use a .gguf file, e.g. from Hugging Face.")
        }
        let version = try integer(UInt32.self)
        if version.byteSwapped == 2 || version.byteSwapped == 3 {
            throw LooplError(.invalidModel, "\(name) is a big-endian GGUF file, which Loopl does not read; use a little-endian conversion.")
        }
        guard version == 2 || version == 3 else {
            throw LooplError(.invalidModel, "\(name) uses GGUF version \(version); only versions 2 and 3 are supported.")
        }
        let tensorCount = try integer(UInt64.self)
        let keyCount = try count(elementSize: 12)
        var keys: [String] = []
        var values: [String: GGUFValue] = [:]
        for index in 0..<keyCount {
            key = "key \(index + 1) of \(keyCount)"
            let name = try string()
            key = "'\(name)'"
            let type = try integer(UInt32.self)
            try hold(MemoryLayout<GGUFValue>.stride)
            let value = try value(type: type, depth: 0)
            if values.updateValue(value, forKey: name) == nil { keys.append(name) }
        }
        return (version, tensorCount, keys, values)
    }
}
