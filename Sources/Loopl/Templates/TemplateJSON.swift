/// `tojson` as transformers defines it: `json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
enum TemplateJSON {
    static func dumps(_ value: TemplateValue, ensureASCII: Bool, indent: String?, separators: (item: String, key: String)?,
                      sortKeys: Bool) throws -> String {
        let json = try value.json()
        let itemSeparator = separators?.item ?? (indent == nil ? ", " : ",")
        let keySeparator = separators?.key ?? ": "
        var out = ""
        write(json, to: &out, indent: indent, level: 0, item: itemSeparator, key: keySeparator, sortKeys: sortKeys)
        return ensureASCII ? escapeNonASCII(out) : out
    }

    private static func write(_ value: JSONValue, to out: inout String, indent: String?, level: Int,
                              item: String, key: String, sortKeys: Bool) {
        func newline(_ depth: Int) {
            guard let indent else { return }
            out += "\n"
            for _ in 0..<depth { out += indent }
        }
        switch value {
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += item }
                newline(level + 1)
                write(element, to: &out, indent: indent, level: level + 1, item: item, key: key, sortKeys: sortKeys)
            }
            newline(level)
            out += "]"
        case .object(let object):
            guard !object.isEmpty else { out += "{}"; return }
            out += "{"
            let keys = sortKeys ? object.keys.sorted { templateCompare(.string($0), .string($1)) ?? 0 < 0 } : object.keys
            for (i, name) in keys.enumerated() {
                if i > 0 { out += item }
                newline(level + 1)
                JSONValue.writeString(name, to: &out)
                out += key
                write(object[name] ?? .null, to: &out, indent: indent, level: level + 1, item: item, key: key, sortKeys: sortKeys)
            }
            newline(level)
            out += "}"
        case .double(let d) where !d.isFinite:
            out += d.isNaN ? "NaN" : (d < 0 ? "-Infinity" : "Infinity")
        default:
            value.write(to: &out, style: .python)
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
