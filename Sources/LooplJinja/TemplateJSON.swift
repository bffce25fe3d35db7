import LooplJSON

/// `tojson` as transformers defines it: `json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
enum TemplateJSON {
    static func dumps(_ value: TemplateValue, ensureASCII: Bool, indent: String?, separators: (item: String, key: String)?,
                      sortKeys: Bool) throws -> String {
        var writer = Writer(indent: indent.map { Array($0.utf8) },
                            item: Array((separators?.item ?? (indent == nil ? ", " : ",")).utf8),
                            key: Array((separators?.key ?? ": ").utf8), sortKeys: sortKeys)
        try writer.write(value, level: 0)
        let out = String(decoding: writer.bytes, as: UTF8.self)
        return ensureASCII ? escapeNonASCII(out) : out
    }

    /// Writes JSON into a byte buffer, escaping strings as Python's json module does.
    private struct Writer {
        let indent: [UInt8]?
        let item: [UInt8]
        let key: [UInt8]
        let sortKeys: Bool
        var bytes: [UInt8] = []

        init(indent: [UInt8]?, item: [UInt8], key: [UInt8], sortKeys: Bool) {
            (self.indent, self.item, self.key, self.sortKeys) = (indent, item, key, sortKeys)
            bytes.reserveCapacity(256)
        }

        mutating func newline(_ depth: Int) {
            guard let indent else { return }
            bytes.append(0x0A)
            for _ in 0..<depth { bytes.append(contentsOf: indent) }
        }

        mutating func string(_ s: String) {
            bytes.append(0x22)
            for b in s.utf8 {
                switch b {
                case 0x22: bytes.append(0x5C); bytes.append(0x22)
                case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
                case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
                case 0x0D: bytes.append(0x5C); bytes.append(0x72)
                case 0x09: bytes.append(0x5C); bytes.append(0x74)
                case 0x08: bytes.append(0x5C); bytes.append(0x62)
                case 0x0C: bytes.append(0x5C); bytes.append(0x66)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
                default: bytes.append(b)
                }
            }
            bytes.append(0x22)
        }

        mutating func write(_ value: TemplateValue, level: Int) throws {
            guard level <= TemplateValue.maxDepth else { throw TemplateFailure("a value nested too deeply for tojson") }
            switch value {
            case .string(let s), .markup(let s): string(s)
            case .list(let elements), .tuple(let elements):
                guard !elements.isEmpty else { bytes.append(contentsOf: [0x5B, 0x5D]); return }
                bytes.append(0x5B)
                for (i, element) in elements.enumerated() {
                    if i > 0 { bytes.append(contentsOf: item) }
                    newline(level + 1)
                    try write(element, level: level + 1)
                }
                newline(level)
                bytes.append(0x5D)
            case .dict(let object):
                guard !object.isEmpty else { bytes.append(contentsOf: [0x7B, 0x7D]); return }
                bytes.append(0x7B)
                var entries = object.entries
                if sortKeys { entries.sort { templateCompare($0.key.value, $1.key.value) ?? 0 < 0 } }
                for (i, entry) in entries.enumerated() {
                    if i > 0 { bytes.append(contentsOf: item) }
                    newline(level + 1)
                    string(entry.key.text)
                    bytes.append(contentsOf: key)
                    try write(entry.value, level: level + 1)
                }
                newline(level)
                bytes.append(0x7D)
            case .none: bytes.append(contentsOf: "null".utf8)
            case .bool(let b): bytes.append(contentsOf: (b ? "true" : "false").utf8)
            case .int(let i): bytes.append(contentsOf: String(i).utf8)
            case .double(let d) where !d.isFinite:
                bytes.append(contentsOf: (d.isNaN ? "NaN" : (d < 0 ? "-Infinity" : "Infinity")).utf8)
            case .double(let d): bytes.append(contentsOf: JSONValue.formatDouble(d).utf8)
            default:
                throw TemplateFailure("Object of type \(value.typeName) is not JSON serializable")
            }
        }
    }

    /// ensure_ascii: every non-ASCII code point as `\uXXXX`, with surrogate pairs above U+FFFF.
    private static func escapeNonASCII(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if scalar.isASCII { out.unicodeScalars.append(scalar); continue }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }
}
