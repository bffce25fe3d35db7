/// Kimi K3's tag tree: `<|open|>tag attr="v"<|sep|>` … `<|close|>tag<|sep|>`, with calls as
/// `<|open|>tools<|sep|><|open|>call tool="F" index="1"<|sep|>` then
/// `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>` (or one
/// `<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>`) and `<|close|>call<|sep|>`.
enum TagTreeCallReaders {
    private static let tools = [UInt8](literal: "<|open|>tools<|sep|>")
    private static let toolsClose = [UInt8](literal: "<|close|>tools<|sep|>")
    private static let call = [UInt8](literal: "<|open|>call")
    private static let callClose = [UInt8](literal: "<|close|>call<|sep|>")
    private static let argument = [UInt8](literal: "<|open|>argument")
    private static let argumentClose = [UInt8](literal: "<|close|>argument<|sep|>")
    private static let json = [UInt8](literal: "<|open|>json")
    private static let jsonClose = [UInt8](literal: "<|close|>json<|sep|>")
    private static let separator = [UInt8](literal: "<|sep|>")

    static let kimiK3: BlockReader = { c in
        try c.expect(tools)
        var pieces: [Piece] = []
        while true {
            let before = c.index
            c.skipSpaces()
            guard try c.accept(call) else { c.index = before; break }
            let attributes = try readAttributes(&c)
            guard let name = attributes["tool"], Piece.isPlausibleName(name) else { throw ScanStop.noMatch }
            var arguments = JSONObject()
            if try c.accept(json) {
                _ = try readAttributes(&c)
                guard let object = Piece.arguments(.string(try c.read(upTo: jsonClose))) else { throw ScanStop.noMatch }
                arguments = object
            }
            while try c.accept(argument) {
                let attributes = try readAttributes(&c)
                guard let key = attributes["key"] else { throw ScanStop.noMatch }
                let raw = try c.read(upTo: argumentClose)
                arguments[key] = attributes["type"] == "string" ? .string(raw) : Piece.looseValue(raw)
            }
            try XMLCallReaders.strictClose(&c, callClose)
            pieces.append(.call(name: name, arguments: arguments, id: nil))
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        try c.skipClosingTag(toolsClose)
        return pieces
    }

    /// ` key="value"` pairs up to `<|sep|>` (consumed), with `&quot;` and `&amp;` decoded.
    private static func readAttributes(_ c: inout ByteCursor) throws -> [String: String] {
        let text = try c.read(upTo: separator)
        guard text.utf8.count <= 1024 else { throw ScanStop.noMatch }
        var result: [String: String] = [:]
        var rest = Substring(text)
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingPrefix(while: { $0 == " " })
            let afterEquals = rest[rest.index(after: equals)...]
            guard afterEquals.first == "\"", let close = afterEquals.dropFirst().firstIndex(of: "\"") else { throw ScanStop.noMatch }
            let value = afterEquals[afterEquals.index(after: afterEquals.startIndex)..<close]
            result[String(key)] = String(value).replacing("&quot;", with: "\"").replacing("&amp;", with: "&")
            rest = afterEquals[afterEquals.index(after: close)...]
        }
        return result
    }
}
