extension JSONValue {
    /// How JSON text is laid out.
    public enum Style: Sendable {
        /// No spaces: `{"a":1,"b":[1,2]}`.
        case compact
        /// Python's `json.dumps` defaults, as chat templates' `tojson` prints: `{"a": 1, "b": [1, 2]}`,
        /// non-ASCII kept as is.
        case python
    }

    /// The value as JSON text. Doubles keep a fraction (`1.0`); non-finite doubles print as
    /// Python does (`NaN`, `Infinity`), which is not strict JSON.
    public func jsonText(style: Style = .compact) -> String {
        var out = ""
        write(to: &out, style: style)
        return out
    }

    func write(to out: inout String, style: Style) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d): out += JSONValue.formatDouble(d)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, element) in a.enumerated() {
                if i > 0 { out += style == .compact ? "," : ", " }
                element.write(to: &out, style: style)
            }
            out += "]"
        case .object(let o):
            out += "{"
            var first = true
            for (key, value) in o {
                if !first { out += style == .compact ? "," : ", " }
                first = false
                JSONValue.writeString(key, to: &out)
                out += style == .compact ? ":" : ": "
                value.write(to: &out, style: style)
            }
            out += "}"
        }
    }

    /// A double as Python's `repr` prints it: shortest round-trip digits, always with a fraction or exponent.
    package static func formatDouble(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        let text = d.description
        return text.contains(where: { $0 == "." || $0 == "e" }) ? text : text + ".0"
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
