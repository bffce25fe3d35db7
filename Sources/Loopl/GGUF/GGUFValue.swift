/// A value of a GGUF file's key/value metadata, in its stored type.
package enum GGUFValue: Sendable, Hashable {
    case uint8(UInt8)
    case int8(Int8)
    case uint16(UInt16)
    case int16(Int16)
    case uint32(UInt32)
    case int32(Int32)
    case float32(Float)
    case bool(Bool)
    case string(String)
    /// Elements of one type (the type code is kept for empty arrays).
    case array(elementType: UInt32, [GGUFValue])
    case uint64(UInt64)
    case int64(Int64)
    case float64(Double)

    /// The type's name as the GGUF specification and the Python `gguf` package spell it, e.g. `UINT32`.
    package var typeName: String { GGUFValue.typeName(code: typeCode) }

    var typeCode: UInt32 {
        switch self {
        case .uint8: 0
        case .int8: 1
        case .uint16: 2
        case .int16: 3
        case .uint32: 4
        case .int32: 5
        case .float32: 6
        case .bool: 7
        case .string: 8
        case .array: 9
        case .uint64: 10
        case .int64: 11
        case .float64: 12
        }
    }

    static func typeName(code: UInt32) -> String {
        let names = ["UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY",
                     "UINT64", "INT64", "FLOAT64"]
        return code < names.count ? names[Int(code)] : "UNKNOWN(\(code))"
    }

    /// The value as an integer, for any integer type that fits `Int`.
    package var intValue: Int? {
        switch self {
        case .uint8(let v): Int(v)
        case .int8(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        case .int64(let v): Int(v)
        default: nil
        }
    }

    /// The string, when this is a string.
    package var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// The elements, when this is an array.
    package var arrayValue: [GGUFValue]? { if case .array(_, let a) = self { a } else { nil } }

    /// The value as JSON: integers as integers (a UInt64 beyond `Int` as a double), floats as doubles.
    /// With `arrayLimit`, longer arrays keep only their first `arrayLimit` elements.
    package func jsonValue(arrayLimit: Int? = nil) -> JSONValue {
        switch self {
        case .float32(let v): return .double(Double(v))
        case .float64(let v): return .double(v)
        case .bool(let v): return .bool(v)
        case .string(let v): return .string(v)
        case .uint64(let v): return Int(exactly: v).map { .integer($0) } ?? .double(Double(v))
        case .array(_, let elements):
            let kept = arrayLimit.map { Array(elements.prefix($0)) } ?? elements
            return .array(kept.map { $0.jsonValue(arrayLimit: arrayLimit) })
        default: return .integer(intValue ?? 0)
        }
    }
}
