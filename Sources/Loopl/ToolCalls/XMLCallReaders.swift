/// Readers of XML-like calls whose parameters are tagged one by one.
enum XMLCallReaders {
    private static let functionOpen = [UInt8](literal: "<function=")
    private static let functionClose = [UInt8](literal: "</function>")
    private static let parameterOpen = [UInt8](literal: "<parameter=")
    private static let parameterClose = [UInt8](literal: "</parameter>")

    /// Requires `tag` after optional spaces, or the end of final text (a call missing only its
    /// closing tag).
    static func strictClose(_ c: inout ByteCursor, _ tag: [UInt8]) throws {
        c.skipSpaces()
        if c.atEnd {
            guard c.isFinal else { throw ScanStop.needMore }
            return
        }
        if c.isFinal, c.check(tag) == .partial {
            c.index = c.bytes.count
            return
        }
        try c.expect(tag)
    }

    /// `<function=NAME>` then either JSON arguments (Functionary v3.1) or `<parameter=P>value</parameter>`
    /// tags (Qwen3-Coder, Qwen3.5, Seed-OSS, Nemotron 3), then `</function>`.
    static func functionTag(_ c: inout ByteCursor) throws -> Piece {
        try c.expect(functionOpen)
        let name = try c.name()
        try c.expect(Lit.gt)
        let save = c.index
        c.skipSpaces()
        if try c.require() == UInt8(ascii: "{") {
            guard let arguments = CallShape.arguments(try c.json()) else { throw ScanStop.noMatch }
            try strictClose(&c, functionClose)
            return .call(name: name, arguments: arguments, id: nil)
        }
        c.index = save
        var arguments = JSONObject()
        var texts: [String: String] = [:]
        while true {
            let before = c.index
            c.skipSpaces()
            guard try c.accept(parameterOpen) else { c.index = before; break }
            let key = try c.name()
            try c.expect(Lit.gt)
            let raw = CallShape.stripOneNewline(try c.read(upTo: parameterClose))
            arguments[key] = CallShape.looseValue(raw)
            texts[key] = raw
        }
        try strictClose(&c, functionClose)
        return .looseCall(name: name, arguments: arguments, raw: texts)
    }

    static let function: BlockReader = { c in [try functionTag(&c)] }

    private static let argKey = [UInt8](literal: "<arg_key>")
    private static let argKeyClose = [UInt8](literal: "</arg_key>")
    private static let argValue = [UInt8](literal: "<arg_value>")
    private static let argValueClose = [UInt8](literal: "</arg_value>")

    /// GLM 4.5 and later, after `<tool_call>`: `NAME` then `<arg_key>K</arg_key><arg_value>V</arg_value>`
    /// pairs; the closing `</tool_call>` must follow.
    static func glmBody(_ c: inout ByteCursor) throws -> Piece {
        let name = try c.name()
        var arguments = JSONObject()
        var texts: [String: String] = [:]
        while true {
            let before = c.index
            c.skipSpaces()
            guard try c.accept(argKey) else { c.index = before; break }
            let key = try c.read(upTo: argKeyClose).trimmingWhitespace()
            c.skipSpaces()
            try c.expect(argValue)
            let raw = try c.read(upTo: argValueClose)
            arguments[key] = CallShape.looseValue(raw)
            texts[key] = raw
        }
        let before = c.index
        try strictClose(&c, JSONCallReaders.toolCallClose)
        c.index = before
        return .looseCall(name: name, arguments: arguments, raw: texts)
    }

    /// `open`, one or more `<function=…>` calls, optional `close` (Seed-OSS, and a bare `<function=`).
    static func functionBlock(_ open: String, _ close: String) -> BlockReader {
        let openBytes = Array(open.utf8)
        let closeBytes = Array(close.utf8)
        return { c in
            try c.expect(openBytes)
            c.skipSpaces()
            var pieces = [try functionTag(&c)]
            while true {
                let before = c.index
                c.skipSpaces()
                switch c.check(functionOpen) {
                case .yes: pieces.append(try functionTag(&c))
                case .partial where !c.isFinal: throw ScanStop.needMore
                default: c.index = before
                }
                if c.index == before { break }
            }
            try CallShape.close(&c, closeBytes)
            return pieces
        }
    }

    /// `open`, then `<PREFIXinvoke name="F">` with `<PREFIXparameter name="P" [string="true"]>V</PREFIXparameter>`
    /// (MiniMax M2 with no prefix, DeepSeek V3.2 with `｜DSML｜`), then `close`.
    static func invokeBlock(prefix: String, open: String, close: String) -> BlockReader {
        let openBytes = Array(open.utf8)
        let closeBytes = Array(close.utf8)
        let invoke = Array("<\(prefix)invoke name=\"".utf8)
        let invokeClose = Array("</\(prefix)invoke>".utf8)
        let parameter = Array("<\(prefix)parameter name=\"".utf8)
        let parameterClose = Array("</\(prefix)parameter>".utf8)
        return { c in
            try c.expect(openBytes)
            var pieces: [Piece] = []
            while true {
                let before = c.index
                c.skipSpaces()
                guard try c.accept(invoke) else { c.index = before; break }
                let name = try c.read(upTo: Lit.quote)
                guard CallShape.isPlausibleName(name) else { throw ScanStop.noMatch }
                try c.expect(Lit.gt)
                var arguments = JSONObject()
                var texts: [String: String] = [:]
                while true {
                    let start = c.index
                    c.skipSpaces()
                    guard try c.accept(parameter) else { c.index = start; break }
                    let key = try c.read(upTo: Lit.quote)
                    let attributes = try c.read(upTo: Lit.gt)
                    guard key.utf8.count <= 256, attributes.utf8.count <= 256 else { throw ScanStop.noMatch }
                    let raw = try c.read(upTo: parameterClose)
                    if attributes.contains("string=\"true\"") {
                        arguments[key] = .string(raw)
                    } else {
                        let text = CallShape.stripOneNewline(raw)
                        arguments[key] = CallShape.looseValue(text)
                        if !attributes.contains("string=\"false\"") { texts[key] = text }
                    }
                }
                try strictClose(&c, invokeClose)
                pieces.append(.looseCall(name: name, arguments: arguments, raw: texts))
            }
            guard !pieces.isEmpty else { throw ScanStop.noMatch }
            try CallShape.close(&c, closeBytes)
            return pieces
        }
    }
}
