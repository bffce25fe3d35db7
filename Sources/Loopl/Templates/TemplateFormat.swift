/// Python's `str.format` and `%`-formatting, for the cases templates use.
enum TemplateFormat {
    /// `"{} and {name}".format(...)`: positional and named fields, `{{`/`}}` escapes, `!r` and simple specs.
    static func format(_ s: String, _ arguments: TemplateArguments) throws -> String {
        var out = "", auto = 0, manual = false
        var scalars = s.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if scalar == "}" {
                guard scalars.first == "}" else { throw TemplateFailure("Single '}' encountered in format string") }
                scalars.removeFirst(); out += "}"; continue
            }
            guard scalar == "{" else { out.unicodeScalars.append(scalar); continue }
            if scalars.first == "{" { scalars.removeFirst(); out += "{"; continue }
            var field = ""
            while let next = scalars.popFirst(), next != "}" { field.unicodeScalars.append(next) }
            var spec = ""
            if let colon = field.firstIndex(of: ":") { spec = String(field[field.index(after: colon)...]); field = String(field[..<colon]) }
            var conversion = ""
            if let bang = field.firstIndex(of: "!") { conversion = String(field[field.index(after: bang)...]); field = String(field[..<bang]) }
            var value: TemplateValue
            if field.isEmpty {
                if manual { throw TemplateFailure("cannot switch from manual field specification to automatic field numbering") }
                guard auto < arguments.positional.count else { throw TemplateFailure("Replacement index \(auto) out of range for positional args tuple") }
                value = arguments.positional[auto]; auto += 1
            } else if let index = Int(field) {
                if auto > 0 { throw TemplateFailure("cannot switch from automatic field numbering to manual field specification") }
                manual = true
                guard index < arguments.positional.count else { throw TemplateFailure("Replacement index \(index) out of range for positional args tuple") }
                value = arguments.positional[index]
            } else {
                let parts = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard let found = arguments.keywords.first(where: { $0.name == parts[0] })?.value else { throw TemplateFailure("'\(parts[0])'") }
                value = found
                for part in parts.dropFirst() { value = try TemplateMethods.attribute(of: value, part) }
            }
            let text = conversion == "r" ? value.repr : value.text
            out += try applySpec(spec, text, value)
        }
        return out
    }

    private static func applySpec(_ spec: String, _ text: String, _ value: TemplateValue) throws -> String {
        guard !spec.isEmpty else { return text }
        var body = Substring(spec)
        var align: Character? = nil, fill: Character = " "
        if body.count >= 2, "<>^".contains(body[body.index(after: body.startIndex)]) {
            fill = body.removeFirst(); align = body.removeFirst()
        } else if let first = body.first, "<>^".contains(first) {
            align = body.removeFirst()
        }
        var precision: Int?
        if let dot = body.firstIndex(of: ".") {
            var digits = body[body.index(after: dot)...]
            if digits.last == "f" { digits = digits.dropLast() }
            precision = try Int(digits).map(TemplateText.width)
            body = body[..<dot]
        }
        if body.last == "d" || body.last == "s" { body = body.dropLast() }
        let width = try TemplateText.width(Int(body) ?? 0)
        var result = text
        if let precision, value.exactNumber != nil {
            result = fixed(value.asDouble, precision)
        }
        let count = result.unicodeScalars.count
        guard width > count else { return result }
        let pad = width - count
        switch align ?? (value.exactNumber != nil ? ">" : "<") {
        case ">": return String(repeating: fill, count: pad) + result
        case "^": return String(repeating: fill, count: pad / 2) + result + String(repeating: fill, count: pad - pad / 2)
        default: return result + String(repeating: fill, count: pad)
        }
    }

    /// A number with `precision` digits after the point, rounded half to even like Python.
    static func fixed(_ d: Double, _ precision: Int) -> String {
        guard d.isFinite else { return TemplateValue.pythonFloat(d) }
        var scaled = (d * pow10(precision)).rounded(.toNearestOrEven)
        if scaled == 0 { scaled = 0 }
        guard abs(scaled) < 9e18 else { return TemplateValue.pythonFloat(d) }
        let negative = scaled < 0
        var digits = String(Int64(abs(scaled)))
        if precision > 0 {
            if digits.count <= precision { digits = String(repeating: "0", count: precision - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -precision))
        }
        return (negative ? "-" : "") + digits
    }

    private static func pow10(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<max(0, min(n, 30)) { r *= 10 }
        return r
    }

    /// `"%s, %d" | format(a, b)`: printf-style with s, d, i, f, r and %%.
    static func printf(_ s: String, _ values: [TemplateValue], allowUnused: Bool = false) throws -> String {
        var out = "", index = 0
        var scalars = s.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else { out.unicodeScalars.append(scalar); continue }
            var precision: Int?
            var width = ""
            while let next = scalars.first, ("0"..."9").contains(next) { width.unicodeScalars.append(next); scalars.removeFirst() }
            if scalars.first == "." {
                scalars.removeFirst()
                var digits = ""
                while let next = scalars.first, ("0"..."9").contains(next) { digits.unicodeScalars.append(next); scalars.removeFirst() }
                precision = try TemplateText.width(Int(digits) ?? 0)
            }
            guard let code = scalars.popFirst() else { throw TemplateFailure("incomplete format") }
            if code == "%" { out += "%"; continue }
            guard index < values.count else { throw TemplateFailure("not enough arguments for format string") }
            let value = values[index]
            index += 1
            var text: String
            switch code {
            case "s": text = value.text
            case "r": text = value.repr
            case "d", "i":
                guard value.exactNumber != nil else { throw TemplateFailure("%\(code) format: a real number is required, not \(value.typeName)") }
                if case .int(let i) = value.exactNumber ?? .none { text = String(i) } else { text = String(Int(value.asDouble)) }
            case "f", "F":
                guard value.exactNumber != nil else { throw TemplateFailure("must be real number, not \(value.typeName)") }
                text = fixed(value.asDouble, precision ?? 6)
            default: throw TemplateFailure("unsupported format character '\(code)'")
            }
            if let w = try Int(width).map(TemplateText.width), w > text.unicodeScalars.count {
                text = String(repeating: " ", count: w - text.unicodeScalars.count) + text
            }
            out += text
        }
        guard index == values.count || allowUnused else { throw TemplateFailure("not all arguments converted during string formatting") }
        return out
    }
}
