/// String operations with Python's semantics: on code points and bytes, never on grapheme clusters.
enum TemplateText {
    /// A padding or indentation width, refused when it would build an absurdly large string.
    static func width(_ n: Int) throws -> Int {
        guard n <= 1 << 20 else { throw TemplateFailure("a width of \(n) is too large") }
        return max(0, n)
    }

    /// The byte offset of the first `needle` in `haystack` at or after `from`.
    static func find(_ needle: String, in haystack: String, from: Int = 0) -> Int? {
        let h = Array(haystack.utf8), n = Array(needle.utf8)
        return find(n, in: h, from: from)
    }

    static func find(_ n: [UInt8], in h: [UInt8], from: Int = 0) -> Int? {
        if n.isEmpty { return min(from, h.count) }
        guard h.count >= n.count else { return nil }
        var i = from
        let first = n[0]
        while i <= h.count - n.count {
            if h[i] == first {
                var j = 1
                while j < n.count && h[i + j] == n[j] { j += 1 }
                if j == n.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// Python's `str.replace(old, new, count)`.
    static func replace(_ s: String, _ old: String, _ new: String, count: Int = -1) -> String {
        let h = Array(s.utf8), o = Array(old.utf8)
        if o.isEmpty {
            // Python inserts `new` between every code point and at both ends.
            var out = "", done = 0
            for scalar in s.unicodeScalars {
                if count < 0 || done < count { out += new; done += 1 }
                out.unicodeScalars.append(scalar)
            }
            if count < 0 || done < count { out += new }
            return out
        }
        var out: [UInt8] = []
        out.reserveCapacity(h.count)
        var i = 0, done = 0
        while count < 0 || done < count, let at = find(o, in: h, from: i) {
            out.append(contentsOf: h[i..<at])
            out.append(contentsOf: new.utf8)
            i = at + o.count
            done += 1
        }
        out.append(contentsOf: h[i...])
        return String(decoding: out, as: UTF8.self)
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// Python's `strip`, `lstrip` and `rstrip`, with whitespace or the given characters.
    static func strip(_ s: String, _ chars: String?, leading: Bool, trailing: Bool) -> String {
        let set = chars.map { Set($0.unicodeScalars) }
        let remove: (Unicode.Scalar) -> Bool = { set?.contains($0) ?? isSpace($0) }
        var scalars = Substring(s).unicodeScalars[...]
        if leading { while let first = scalars.first, remove(first) { scalars.removeFirst() } }
        if trailing { while let last = scalars.last, remove(last) { scalars.removeLast() } }
        return String(String.UnicodeScalarView(scalars))
    }

    /// Python's `split(sep, maxsplit)`; without a separator, runs of whitespace split and ends are dropped.
    static func split(_ s: String, _ separator: String?, maxSplit: Int = -1) throws -> [String] {
        guard let separator else {
            var parts: [String] = [], current = String.UnicodeScalarView(), inWord = false
            var scalars = s.unicodeScalars[...]
            while let scalar = scalars.first {
                if isSpace(scalar) {
                    if inWord {
                        parts.append(String(current)); current = .init(); inWord = false
                        if maxSplit >= 0 && parts.count >= maxSplit {
                            while let next = scalars.first, isSpace(next) { scalars.removeFirst() }
                            if !scalars.isEmpty { parts.append(String(String.UnicodeScalarView(scalars))) }
                            return parts
                        }
                    }
                } else {
                    current.append(scalar); inWord = true
                }
                scalars.removeFirst()
            }
            if inWord { parts.append(String(current)) }
            return parts
        }
        guard !separator.isEmpty else { throw TemplateFailure("empty separator") }
        let h = Array(s.utf8), n = Array(separator.utf8)
        var parts: [String] = [], i = 0
        while maxSplit < 0 || parts.count < maxSplit, let at = find(n, in: h, from: i) {
            parts.append(String(decoding: h[i..<at], as: UTF8.self))
            i = at + n.count
        }
        parts.append(String(decoding: h[i...], as: UTF8.self))
        return parts
    }

    /// Python's `rsplit(sep, maxsplit)` with a separator.
    static func rsplit(_ s: String, _ separator: String, maxSplit: Int) throws -> [String] {
        guard maxSplit >= 0 else { return try split(s, separator) }
        let all = try split(s, separator)
        guard all.count > maxSplit + 1 else { return all }
        let head = all[0..<(all.count - maxSplit)].joined(separator: separator)
        return [head] + all[(all.count - maxSplit)...]
    }

    static func hasPrefix(_ s: String, _ p: String) -> Bool { s.utf8.starts(with: p.utf8) }
    static func hasSuffix(_ s: String, _ p: String) -> Bool { s.utf8.reversed().starts(with: p.utf8.reversed()) }

    /// Python's `splitlines()`.
    static func splitLines(_ s: String, keepEnds: Bool = false) -> [String] {
        var lines: [String] = [], current = String.UnicodeScalarView()
        var scalars = s.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar.value {
            case 0x0A, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029:
                if keepEnds { current.append(scalar) }
                lines.append(String(current)); current = .init()
            case 0x0D:
                if keepEnds { current.append(scalar) }
                if scalars.first == "\n" {
                    scalars.removeFirst()
                    if keepEnds { current.append("\n") }
                }
                lines.append(String(current)); current = .init()
            default: current.append(scalar)
            }
        }
        if !current.isEmpty { lines.append(String(current)) }
        return lines
    }

    static func upper(_ s: String) -> String { s.uppercased() }
    static func lower(_ s: String) -> String { s.lowercased() }

    /// Python's `capitalize`: the first character upper case, the rest lower case.
    static func capitalize(_ s: String) -> String {
        guard let first = s.unicodeScalars.first else { return s }
        return first.properties.titlecaseMapping + String(String.UnicodeScalarView(s.unicodeScalars.dropFirst())).lowercased()
    }

    /// Python's `str.title`: a letter after a non-letter goes upper case, the others lower case.
    static func title(_ s: String) -> String {
        var out = "", previousCased = false
        for scalar in s.unicodeScalars {
            let isLetter = scalar.properties.isAlphabetic
            out += previousCased ? scalar.properties.lowercaseMapping : scalar.properties.titlecaseMapping
            previousCased = isLetter
        }
        return out
    }
}
