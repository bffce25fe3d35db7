/// `tojson` as transformers defines it: `json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
enum TemplateJSON {
    static func dumps(_ value: TemplateValue, ensureASCII: Bool, indent: String?, separators: (item: String, key: String)?,
                      sortKeys: Bool) throws -> String {
        let itemSeparator = separators?.item ?? (indent == nil ? ", " : ",")
        let keySeparator = separators?.key ?? ": "
        var out = ""
        try write(value, to: &out, indent: indent, level: 0, item: itemSeparator, key: keySeparator, sortKeys: sortKeys)
        return ensureASCII ? escapeNonASCII(out) : out
    }

    private static func write(_ value: TemplateValue, to out: inout String, indent: String?, level: Int,
                              item: String, key: String, sortKeys: Bool) throws {
        func newline(_ depth: Int) {
            guard let indent else { return }
            out += "\n"
            for _ in 0..<depth { out += indent }
        }
        switch value.plain {
        case .list(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += item }
                newline(level + 1)
                try write(element, to: &out, indent: indent, level: level + 1, item: item, key: key, sortKeys: sortKeys)
            }
            newline(level)
            out += "]"
        case .dict(let object):
            guard !object.isEmpty else { out += "{}"; return }
            out += "{"
            var order = Array(object.keys.indices)
            if sortKeys {
                order.sort { templateCompare(object.keys[$0].value, object.keys[$1].value) ?? 0 < 0 }
            }
            for (i, position) in order.enumerated() {
                if i > 0 { out += item }
                newline(level + 1)
                JSONValue.writeString(object.keys[position].text, to: &out)
                out += key
                try write(object.values[position], to: &out, indent: indent, level: level + 1, item: item, key: key,
                          sortKeys: sortKeys)
            }
            newline(level)
            out += "}"
        case .double(let d) where !d.isFinite:
            out += d.isNaN ? "NaN" : (d < 0 ? "-Infinity" : "Infinity")
        case .string(let s):
            JSONValue.writeString(s, to: &out)
        case .none: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONValue.formatDouble(d)
        default:
            throw TemplateFailure("Object of type \(value.typeName) is not JSON serializable")
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
