/// Finds where a JSON value that starts at a position ends, telling a value cut off by the end of
/// the text from one that is not JSON at all, without building the value.
enum JSONExtent {
    enum Outcome: Equatable {
        /// The value ends just before this byte offset.
        case complete(Int)
        /// The text ends inside the value.
        case incomplete
        case invalid
    }

    private enum Failure: Error { case incomplete, invalid }

    static let maxDepth = 256

    static func scan(_ bytes: [UInt8], from start: Int) -> Outcome {
        var i = start
        do {
            try value(bytes, &i, depth: 0)
            return .complete(i)
        } catch Failure.incomplete {
            return .incomplete
        } catch {
            return .invalid
        }
    }

    private static func spaces(_ b: [UInt8], _ i: inout Int) {
        while i < b.count, ByteCursor.isSpace(b[i]) { i += 1 }
    }

    private static func next(_ b: [UInt8], _ i: Int) throws -> UInt8 {
        guard i < b.count else { throw Failure.incomplete }
        return b[i]
    }

    private static func value(_ b: [UInt8], _ i: inout Int, depth: Int) throws {
        guard depth < maxDepth else { throw Failure.invalid }
        spaces(b, &i)
        switch try next(b, i) {
        case UInt8(ascii: "{"):
            i += 1
            spaces(b, &i)
            if try next(b, i) == UInt8(ascii: "}") { i += 1; return }
            while true {
                spaces(b, &i)
                guard try next(b, i) == UInt8(ascii: "\"") else { throw Failure.invalid }
                try string(b, &i)
                spaces(b, &i)
                guard try next(b, i) == UInt8(ascii: ":") else { throw Failure.invalid }
                i += 1
                try value(b, &i, depth: depth + 1)
                spaces(b, &i)
                let c = try next(b, i)
                i += 1
                if c == UInt8(ascii: "}") { return }
                guard c == UInt8(ascii: ",") else { throw Failure.invalid }
            }
        case UInt8(ascii: "["):
            i += 1
            spaces(b, &i)
            if try next(b, i) == UInt8(ascii: "]") { i += 1; return }
            while true {
                try value(b, &i, depth: depth + 1)
                spaces(b, &i)
                let c = try next(b, i)
                i += 1
                if c == UInt8(ascii: "]") { return }
                guard c == UInt8(ascii: ",") else { throw Failure.invalid }
            }
        case UInt8(ascii: "\""):
            try string(b, &i)
        case UInt8(ascii: "t"): try word(b, &i, Lit.trueWord)
        case UInt8(ascii: "f"): try word(b, &i, Lit.falseWord)
        case UInt8(ascii: "n"): try word(b, &i, Lit.nullWord)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try number(b, &i)
        default:
            throw Failure.invalid
        }
    }

    private static func word(_ b: [UInt8], _ i: inout Int, _ literal: [UInt8]) throws {
        switch ByteCursor.match(b, at: i, literal) {
        case .yes: i += literal.count
        case .no: throw Failure.invalid
        case .partial: throw Failure.incomplete
        }
    }

    private static func string(_ b: [UInt8], _ i: inout Int) throws {
        i += 1
        while true {
            let c = try next(b, i)
            i += 1
            switch c {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                let e = try next(b, i)
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard isHex(try next(b, i)) else { throw Failure.invalid }
                        i += 1
                    }
                default: throw Failure.invalid
                }
            case 0..<0x20: throw Failure.invalid
            default: break
            }
        }
    }

    private static func isHex(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// A number; one that reaches the end of the text may still go on, so it is incomplete.
    private static func number(_ b: [UInt8], _ i: inout Int) throws {
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(try next(b, i)) else { throw Failure.invalid }
        if b[i] == UInt8(ascii: "0") { i += 1 } else { while i < b.count, isDigit(b[i]) { i += 1 } }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(try next(b, i)) else { throw Failure.invalid }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(try next(b, i)) else { throw Failure.invalid }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if i >= b.count { throw Failure.incomplete }
    }
}
