import Foundation

/// Python's `str.format` and `%`-formatting.
enum TemplateFormat {
    /// `"{} {0[1]} {name.attr!r:>8}".format(...)`: automatic and manual numbering, named fields with
    /// attributes and items, conversions, `{{`/`}}` escapes and the format-spec mini-language.
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
            var field = "", depth = 0
            while true {
                guard let next = scalars.popFirst() else { throw TemplateFailure("expected '}' before end of string") }
                if next == "}" && depth == 0 { break }
                if next == "{" { depth += 1 } else if next == "}" { depth -= 1 }
                field.unicodeScalars.append(next)
            }
            let nameEnd = field.firstIndex { $0 == "!" || $0 == ":" } ?? field.endIndex
            let name = String(field[..<nameEnd])
            var rest = field[nameEnd...]
            var value = try resolve(name, arguments, auto: &auto, manual: &manual)
            if rest.first == "!" {
                rest.removeFirst()
                let conversion = rest.popFirst()
                switch conversion {
                case "r", "a": value = .string(value.repr)
                case "s": value = .string(value.text)
                default: throw TemplateFailure("Unknown conversion specifier \(conversion.map(String.init) ?? "")")
                }
            }
            if rest.first == ":" { rest.removeFirst() }
            var spec = String(rest)
            if spec.contains("{") { spec = try format(spec, arguments) }
            out += try FormatSpec(spec).apply(to: value)
        }
        return out
    }

    /// A field's value: `0`, `` (the next one), `name`, then `.attribute` and `[key]` parts.
    private static func resolve(_ field: String, _ arguments: TemplateArguments, auto: inout Int, manual: inout Bool) throws -> TemplateValue {
        var scalars = field.unicodeScalars[...]
        var first = ""
        while let next = scalars.first, next != ".", next != "[" { first.unicodeScalars.append(next); scalars.removeFirst() }
        var value: TemplateValue
        if first.isEmpty || Int(first) != nil {
            let index: Int
            if let number = Int(first) {
                if auto > 0 { throw TemplateFailure("cannot switch from automatic field numbering to manual field specification") }
                manual = true
                index = number
            } else {
                if manual { throw TemplateFailure("cannot switch from manual field specification to automatic field numbering") }
                index = auto
                auto += 1
            }
            guard index < arguments.positional.count else {
                throw TemplateFailure("Replacement index \(index) out of range for positional args tuple")
            }
            value = arguments.positional[index]
        } else {
            guard let found = arguments.keywords.first(where: { $0.name == first })?.value else { throw TemplateFailure("'\(first)'") }
            value = found
        }
        while let next = scalars.popFirst() {
            var part = ""
            if next == "." {
                while let c = scalars.first, c != ".", c != "[" { part.unicodeScalars.append(c); scalars.removeFirst() }
                value = try TemplateMethods.attribute(of: value, part)
            } else {
                while let c = scalars.popFirst(), c != "]" { part.unicodeScalars.append(c) }
                value = try TemplateMethods.item(of: value, Int(part).map(TemplateValue.int) ?? .string(part))
            }
            if case .undefined(let why) = value { throw TemplateFailure(why) }
        }
        return value
    }

    /// `"%s, %5.1f, %(name)s" % values`: printf-style conversions with flags, width and precision.
    static func printf(_ s: String, _ values: [TemplateValue], allowUnused: Bool = false) throws -> String {
        var out = "", index = 0, usedMapping = false
        var scalars = s.unicodeScalars[...]
        func number() -> Int? {
            var digits = ""
            while let next = scalars.first, ("0"..."9").contains(next) { digits.unicodeScalars.append(next); scalars.removeFirst() }
            return Int(digits)
        }
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else { out.unicodeScalars.append(scalar); continue }
            var key: String?
            if scalars.first == "(" {
                scalars.removeFirst()
                var name = ""
                while let c = scalars.popFirst(), c != ")" { name.unicodeScalars.append(c) }
                key = name
            }
            var spec = FormatSpec(), leftAlign = false
            while let flag = scalars.first, "-+ #0".unicodeScalars.contains(flag) {
                scalars.removeFirst()
                switch flag {
                case "-": leftAlign = true
                case "0": spec.zero = true
                case "#": spec.alternate = true
                default: spec.sign = Character(flag)
                }
            }
            spec.width = try TemplateText.width(number() ?? 0)
            if scalars.first == "." {
                scalars.removeFirst()
                spec.precision = try TemplateText.width(number() ?? 0)
            }
            while let length = scalars.first, "hlL".unicodeScalars.contains(length) { scalars.removeFirst() }
            guard let code = scalars.popFirst() else { throw TemplateFailure("incomplete format") }
            if code == "%" { out += "%"; continue }
            let value: TemplateValue
            if let key {
                guard values.count == 1, case .dict(let mapping) = values[0].plain else { throw TemplateFailure("format requires a mapping") }
                guard let found = mapping[key] else { throw TemplateFailure("'\(key)'") }
                value = found
                usedMapping = true
            } else {
                guard index < values.count else { throw TemplateFailure("not enough arguments for format string") }
                value = values[index]
                index += 1
            }
            // printf right-aligns everything; `-` left-aligns, `0` pads numbers after the sign.
            if leftAlign { spec.zero = false }
            spec.align = leftAlign ? "<" : spec.zero ? nil : ">"
            out += try spec.printf(value, code: Character(code))
        }
        guard usedMapping || index == values.count || allowUnused else {
            throw TemplateFailure("not all arguments converted during string formatting")
        }
        return out
    }
}

/// Python's format-spec mini-language: `[[fill]align][sign][#][0][width][,|_][.precision][type]`.
struct FormatSpec {
    var fill: Character?
    var align: Character?
    var sign: Character = "-"
    var alternate = false
    var zero = false
    var width = 0
    var grouping: Character?
    var precision: Int?
    var type: Character?
    private var isEmpty = true

    init() {}

    init(_ spec: String) throws {
        let c = Array(spec)
        isEmpty = c.isEmpty
        var i = 0
        func digits() -> Int? {
            var n = ""
            while i < c.count, c[i].isASCII, c[i].isNumber { n.append(c[i]); i += 1 }
            return Int(n)
        }
        if c.count >= 2, "<>=^".contains(c[1]) { fill = c[0]; align = c[1]; i = 2 } else if let first = c.first, "<>=^".contains(first) { align = first; i = 1 }
        if i < c.count, "+- ".contains(c[i]) { sign = c[i]; i += 1 }
        if i < c.count, c[i] == "z" { i += 1 }
        if i < c.count, c[i] == "#" { alternate = true; i += 1 }
        if i < c.count, c[i] == "0" { zero = true; i += 1 }
        width = try TemplateText.width(digits() ?? 0)
        if i < c.count, c[i] == "," || c[i] == "_" { grouping = c[i]; i += 1 }
        if i < c.count, c[i] == "." {
            i += 1
            guard let p = digits() else { throw TemplateFailure("Format specifier missing precision") }
            precision = try TemplateText.width(p)
        }
        if i < c.count { type = c[i]; i += 1 }
        if i < c.count { throw TemplateFailure("Invalid format specifier '\(spec)'") }
    }

    /// `format(value, spec)`.
    func apply(to value: TemplateValue) throws -> String {
        if isEmpty { return value.text }
        switch value.plain {
        case .string(let s):
            guard type == nil || type == "s" else { throw unknown(value) }
            var text = s
            if let precision { text = String(String.UnicodeScalarView(s.unicodeScalars.prefix(precision))) }
            return pad("", text, defaultAlign: "<")
        case .bool, .int:
            if let type, "eEfFgG%".contains(type) { return try float(value.asDouble) }
            guard type == nil || "dnbboxXc".contains(type ?? "d") else { throw unknown(value) }
            guard precision == nil else { throw TemplateFailure("Precision not allowed in integer format specifier") }
            guard case .int(let i) = value.exactNumber ?? .none else { throw unknown(value) }
            return try integer(i)
        case .double(let d):
            guard type == nil || "eEfFgGn%".contains(type ?? "g") else { throw unknown(value) }
            return try float(d)
        default:
            throw TemplateFailure("unsupported format string passed to \(value.typeName).__format__")
        }
    }

    /// One `%` conversion of printf-style formatting.
    func printf(_ value: TemplateValue, code: Character) throws -> String {
        var spec = self
        switch code {
        case "s", "r", "a":
            spec.zero = false
            spec.type = nil
            spec.isEmpty = false
            return try spec.apply(to: .string(code == "s" ? value.text : value.repr))
        case "d", "i", "u", "x", "X", "o", "c":
            let number: Int
            switch value.exactNumber {
            case .int(let i)?: number = i
            case .double(let d)? where "diu".contains(code) && d.isFinite && abs(d) < 9e18: number = Int(d)
            default:
                if code == "c", case .string(let s) = value.plain, s.unicodeScalars.count == 1 {
                    return spec.pad("", s, defaultAlign: ">")
                }
                throw TemplateFailure("%\(code) format: a real number is required, not \(value.typeName)")
            }
            spec.type = "diu".contains(code) ? "d" : code
            spec.precision = nil
            return try spec.integer(number)
        case "e", "E", "f", "F", "g", "G":
            guard value.exactNumber != nil else { throw TemplateFailure("must be real number, not \(value.typeName)") }
            spec.type = code
            return try spec.float(value.asDouble)
        default:
            throw TemplateFailure("unsupported format character '\(code)'")
        }
    }

    private func unknown(_ value: TemplateValue) -> TemplateFailure {
        TemplateFailure("Unknown format code '\(type.map(String.init) ?? "")' for object of type '\(value.typeName)'")
    }

    private func integer(_ n: Int) throws -> String {
        let magnitude = n.magnitude
        var digits: String
        var prefix = ""
        switch type {
        case "b": digits = String(magnitude, radix: 2); prefix = "0b"
        case "o": digits = String(magnitude, radix: 8); prefix = "0o"
        case "x": digits = String(magnitude, radix: 16); prefix = "0x"
        case "X": digits = String(magnitude, radix: 16).uppercased(); prefix = "0X"
        case "c":
            guard let scalar = Unicode.Scalar(UInt32(clamping: n)), n >= 0 else { throw TemplateFailure("%c arg not in range(0x110000)") }
            return pad("", String(scalar), defaultAlign: "<")
        default: digits = String(magnitude)
        }
        if let grouping {
            guard type == nil || type == "d" || grouping == "_" else { throw TemplateFailure("Cannot specify ',' with '\(type ?? "d")'.") }
            digits = group(digits, every: type == nil || type == "d" ? 3 : 4, with: grouping)
        }
        return pad(signText(negative: n < 0) + (alternate ? prefix : ""), digits, defaultAlign: ">")
    }

    private func float(_ d: Double) throws -> String {
        let magnitude = abs(d)
        var body: String
        switch type {
        case nil where precision == nil: body = TemplateValue.pythonFloat(magnitude)
        case nil, "n"?:
            body = String(format: "%.*g", Int32(max(precision ?? 6, 1)), magnitude)
            if magnitude.isFinite, !body.contains("."), !body.contains("e") { body += ".0" }
        case "%"?: body = String(format: "%.*f", Int32(precision ?? 6), magnitude * 100) + "%"
        case let code?:
            body = String(format: "%\(alternate ? "#" : "").*\(code == "F" ? "f" : code)", Int32(precision ?? 6), magnitude)
            if code == "F" { body = body.uppercased() }
        }
        if let grouping, magnitude.isFinite {
            let integerEnd = body.firstIndex { !$0.isNumber } ?? body.endIndex
            body = group(String(body[..<integerEnd]), every: 3, with: grouping) + body[integerEnd...]
        }
        return pad(signText(negative: d.sign == .minus && !d.isNaN), body, defaultAlign: ">")
    }

    private func signText(negative: Bool) -> String {
        negative ? "-" : sign == "-" ? "" : String(sign)
    }

    private func group(_ digits: String, every size: Int, with separator: Character) -> String {
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % size == 0 { out.append(separator) }
            out.append(digit)
        }
        return out
    }

    /// `prefix` (sign, `0x`) and `body` padded to the width; `=` puts the padding between them.
    func pad(_ prefix: String, _ body: String, defaultAlign: Character) -> String {
        let count = prefix.unicodeScalars.count + body.unicodeScalars.count
        guard width > count else { return prefix + body }
        let fill = String(self.fill ?? (zero ? "0" : " "))
        let padding = width - count
        switch align ?? (zero ? "=" : defaultAlign) {
        case "<": return prefix + body + String(repeating: fill, count: padding)
        case "^": return String(repeating: fill, count: padding / 2) + prefix + body + String(repeating: fill, count: padding - padding / 2)
        case "=": return prefix + String(repeating: fill, count: padding) + body
        default: return String(repeating: fill, count: padding) + prefix + body
        }
    }
}
