/// Readers of XML-like calls whose parameters are tagged one by one.
enum XMLCallReaders {
    private static let functionOpen = [UInt8](literal: "<function=")
    private static let functionClose = [UInt8](literal: "</function>")
    private static let parameterOpen = [UInt8](literal: "<parameter=")
    private static let parameterClose = [UInt8](literal: "</parameter>")
    /// The tags before which a `<parameter=…>` value whose `</parameter>` is missing ends.
    private static let parameterEnds = [parameterOpen, functionClose, functionOpen, JSONCallReaders.toolCallOpen,
                                        JSONCallReaders.toolCallClose]

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
    /// tags (Qwen3-Coder, Qwen3.5, Seed-OSS, Nemotron 3), then `</function>`. Values keep their text
    /// exactly but, unless `exactValues` (Seed-OSS), for the one line break after the opening tag and
    /// the one before the closing tag that Qwen3-Coder's template writes.
    static func functionTag(_ c: inout ByteCursor, exactValues: Bool = false) throws -> Piece {
        try c.expect(functionOpen)
        let name = try c.name()
        try c.expect(Lit.gt)
        let save = c.index
        c.skipSpaces()
        if try c.require() == Lit.openBrace {
            guard let arguments = Piece.arguments(try c.json()) else { throw ScanStop.noMatch }
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
            let value = try c.readValue(close: parameterClose, orBefore: parameterEnds).value
            let raw = exactValues ? value : Piece.stripOneNewline(value)
            arguments[key] = Piece.looseValue(raw)
            texts[key] = raw
        }
        try strictClose(&c, functionClose)
        return .looseCall(name: name, arguments: arguments, raw: texts)
    }

    /// A `<function=…>` call without `<tool_call>` before it (Qwen3-Coder sometimes omits it, but
    /// still writes the `</tool_call>` after it).
    static let function: BlockReader = { c in
        let call = try functionTag(&c)
        try c.skipClosingTag(JSONCallReaders.toolCallClose)
        return [call]
    }

    private static let argKey = [UInt8](literal: "<arg_key>")
    private static let argKeyClose = [UInt8](literal: "</arg_key>")
    private static let argValue = [UInt8](literal: "<arg_value>")
    private static let argValueClose = [UInt8](literal: "</arg_value>")
    /// The tags before which a GLM key or value whose closing tag is missing ends (not `<tool_call>`,
    /// which llama.cpp reads inside a value).
    private static let argEnds = [argKey, argValue, JSONCallReaders.toolCallClose]

    /// GLM 4.5 and later, after `<tool_call>`: `NAME` then `<arg_key>K</arg_key><arg_value>V</arg_value>`
    /// pairs; the closing `</tool_call>` must follow (a call without it is unfinished, as llama.cpp
    /// reads it), and is left for the caller.
    static func glmBody(_ c: inout ByteCursor) throws -> Piece {
        let name = try c.name()
        var arguments = JSONObject()
        var texts: [String: String] = [:]
        while true {
            let before = c.index
            c.skipSpaces()
            guard try c.accept(argKey) else { c.index = before; break }
            let (key, closed) = try c.readValue(close: argKeyClose, orBefore: argEnds)
            guard closed else { throw ScanStop.noMatch }
            c.skipSpaces()
            try c.expect(argValue)
            let raw = try c.readValue(close: argValueClose, orBefore: argEnds).value
            arguments[key.trimmingWhitespace()] = Piece.looseValue(raw)
            texts[key.trimmingWhitespace()] = raw
        }
        let before = c.index
        c.skipSpaces()
        try c.expect(JSONCallReaders.toolCallClose)
        c.index = before
        return .looseCall(name: name, arguments: arguments, raw: texts)
    }

    /// `open`, one or more `<function=…>` calls with their values kept exactly, optional `close` (Seed-OSS).
    static func functionBlock(_ open: String, _ close: String) -> BlockReader {
        let openBytes = Array(open.utf8)
        let closeBytes = Array(close.utf8)
        return { c in
            try c.expect(openBytes)
            c.skipSpaces()
            var pieces = [try functionTag(&c, exactValues: true)]
            while true {
                let before = c.index
                c.skipSpaces()
                switch c.check(functionOpen) {
                case .yes: pieces.append(try functionTag(&c, exactValues: true))
                case .partial where !c.isFinal: throw ScanStop.needMore
                default: c.index = before
                }
                if c.index == before { break }
            }
            try c.skipClosingTag(closeBytes)
            return pieces
        }
    }

    /// The tags of calls written as `<invoke name="F"><parameter name="P">V</parameter></invoke>`.
    struct InvokeTags: Sendable {
        let invoke: [UInt8]
        let invokeClose: [UInt8]
        let parameter: [UInt8]
        let parameterClose: [UInt8]
        /// The tags before which a value whose closing tag is missing ends.
        let valueEnds: [[UInt8]]

        init(invoke: String, invokeClose: String, parameter: String, parameterClose: String) {
            self.invoke = Array(invoke.utf8)
            self.invokeClose = Array(invokeClose.utf8)
            self.parameter = Array(parameter.utf8)
            self.parameterClose = Array(parameterClose.utf8)
            valueEnds = [self.parameter, self.invokeClose, self.invoke]
        }

        /// `<PREFIXinvoke name="` … `</PREFIXparameter>`.
        init(prefix: String) {
            self.init(invoke: "<\(prefix)invoke name=\"", invokeClose: "</\(prefix)invoke>",
                      parameter: "<\(prefix)parameter name=\"", parameterClose: "</\(prefix)parameter>")
        }
    }

    /// Consecutive invoke calls (none is an empty list). A parameter with `string="true"` is text,
    /// with `string="false"` JSON, and otherwise typed loosely; its text loses one line break at
    /// either end unless `exactValues` (Step 3, whose values sit right inside the tags).
    static func invokes(_ c: inout ByteCursor, _ tags: InvokeTags, exactValues: Bool = false) throws -> [Piece] {
        var pieces: [Piece] = []
        while true {
            let before = c.index
            c.skipSpaces()
            guard try c.accept(tags.invoke) else { c.index = before; break }
            let name = try c.readQuoted()
            guard Piece.isPlausibleName(name) else { throw ScanStop.noMatch }
            try c.expect(Lit.gt)
            var arguments = JSONObject()
            var texts: [String: String] = [:]
            while true {
                let start = c.index
                c.skipSpaces()
                guard try c.accept(tags.parameter) else { c.index = start; break }
                let key = try c.readQuoted()
                let attributes = try c.readValue(close: Lit.gt, orBefore: [[UInt8(ascii: "<")]])
                guard attributes.closed, key.utf8.count <= 256, attributes.value.utf8.count <= 256 else { throw ScanStop.noMatch }
                let raw = try c.readValue(close: tags.parameterClose, orBefore: tags.valueEnds).value
                if attributes.value.contains("string=\"true\"") {
                    arguments[key] = .string(raw)
                } else {
                    let text = exactValues ? raw : Piece.stripOneNewline(raw)
                    arguments[key] = Piece.looseValue(text)
                    if !attributes.value.contains("string=\"false\"") { texts[key] = text }
                }
            }
            try strictClose(&c, tags.invokeClose)
            pieces.append(.looseCall(name: name, arguments: arguments, raw: texts))
        }
        return pieces
    }

    /// `open`, invoke calls, then `close` (MiniMax M2 with no prefix, DeepSeek V3.2 with `｜DSML｜`).
    static func invokeBlock(prefix: String, open: String, close: String) -> BlockReader {
        let openBytes = Array(open.utf8)
        let closeBytes = Array(close.utf8)
        let tags = InvokeTags(prefix: prefix)
        return { c in
            try c.expect(openBytes)
            let pieces = try invokes(&c, tags)
            guard !pieces.isEmpty else { throw ScanStop.noMatch }
            try c.skipClosingTag(closeBytes)
            return pieces
        }
    }

    private static let stepCalls = [UInt8](literal: "<｜tool_calls_begin｜>")
    private static let stepCallsEnd = [UInt8](literal: "<｜tool_calls_end｜>")
    private static let stepCall = [UInt8](literal: "<｜tool_call_begin｜>")
    private static let stepCallEnd = [UInt8](literal: "<｜tool_call_end｜>")
    private static let stepSeparator = [UInt8](literal: "<｜tool_sep｜>")
    private static let stepFunction = [UInt8](literal: "function")
    private static let stepTags = InvokeTags(prefix: "steptml:")

    /// Step 3: `<｜tool_calls_begin｜>`, then per call `<｜tool_call_begin｜>` (`function<｜tool_sep｜>`)
    /// `<steptml:invoke name="F"><steptml:parameter name="P">V</steptml:parameter></steptml:invoke>`
    /// `<｜tool_call_end｜>` (a `<｜tool_sep｜>` may follow), then `<｜tool_calls_end｜>`. Values are kept exactly.
    static let step3: BlockReader = { c in
        try c.expect(stepCalls)
        var pieces: [Piece] = []
        while true {
            let save = c.index
            c.skipSpaces()
            guard try c.accept(stepCall) else { c.index = save; break }
            c.skipSpaces()
            if try c.accept(stepFunction) {
                // The template's `function<｜tool_sep｜>NAME` head: the invoke that follows names the call.
                c.skipSpaces()
                try c.expect(stepSeparator)
                while let byte = c.peek(), ByteCursor.isNameByte(byte) { c.index += 1 }
            }
            let calls = try invokes(&c, stepTags, exactValues: true)
            guard calls.count == 1 else { throw ScanStop.noMatch }
            pieces += calls
            try strictClose(&c, stepCallEnd)
            let after = c.index
            c.skipSpaces()
            if try !c.accept(stepSeparator) { c.index = after }
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        try c.skipClosingTag(stepCallsEnd)
        return pieces
    }

    /// MiniCPM 5: `<function name="F"><param name="P">V</param></function>`, one or more.
    static let miniCPM: BlockReader = { c in
        let pieces = try invokes(&c, InvokeTags(invoke: "<function name=\"", invokeClose: "</function>",
                                                parameter: "<param name=\"", parameterClose: "</param>"))
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        return pieces
    }

    private static let hunyuanSection = [UInt8](literal: "<tool_calls:opensource>")
    private static let hunyuanSectionEnd = [UInt8](literal: "</tool_calls:opensource>")
    private static let hunyuanCall = [UInt8](literal: "<tool_call:opensource>")
    private static let hunyuanCallEnd = [UInt8](literal: "</tool_call:opensource>")
    private static let hunyuanSeparator = [UInt8](literal: "<tool_sep:opensource>")
    private static let hunyuanKey = [UInt8](literal: "<arg_key:opensource>")
    private static let hunyuanKeyEnd = [UInt8](literal: "</arg_key:opensource>")
    private static let hunyuanValue = [UInt8](literal: "<arg_value:opensource>")
    private static let hunyuanValueEnd = [UInt8](literal: "</arg_value:opensource>")

    /// Hunyuan 3: `<tool_calls:opensource>` then `<tool_call:opensource>NAME<tool_sep:opensource>`
    /// with `<arg_key:opensource>K</arg_key:opensource><arg_value:opensource>V</arg_value:opensource>` pairs.
    static let hunyuan: BlockReader = { c in
        let section = try c.accept(hunyuanSection)
        var pieces: [Piece] = []
        while true {
            let before = c.index
            c.skipSpaces()
            guard try c.accept(hunyuanCall) else { c.index = before; break }
            let name = try c.read(upTo: hunyuanSeparator).trimmingWhitespace()
            guard Piece.isPlausibleName(name) else { throw ScanStop.noMatch }
            var arguments = JSONObject()
            var texts: [String: String] = [:]
            while true {
                let start = c.index
                c.skipSpaces()
                guard try c.accept(hunyuanKey) else { c.index = start; break }
                let key = try c.read(upTo: hunyuanKeyEnd).trimmingWhitespace()
                c.skipSpaces()
                try c.expect(hunyuanValue)
                let raw = try c.read(upTo: hunyuanValueEnd)
                arguments[key] = Piece.looseValue(raw)
                texts[key] = raw
            }
            try strictClose(&c, hunyuanCallEnd)
            pieces.append(.looseCall(name: name, arguments: arguments, raw: texts))
            if !section { break }
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        if section { try c.skipClosingTag(hunyuanSectionEnd) }
        return pieces
    }
}
