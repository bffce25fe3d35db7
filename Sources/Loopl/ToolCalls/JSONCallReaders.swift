/// Readers of blocks whose calls are JSON: a tag, JSON calls, and usually a closing tag.
enum JSONCallReaders {
    /// JSON calls after an optional code fence: one call, a list, or a generic wrapper.
    static func calls(_ c: inout ByteCursor, strict: Bool = false) throws -> [Piece] {
        try c.skipOpeningFence()
        let value = try c.json()
        guard let calls = Piece.jsonCalls(value, strict: strict) else { throw ScanStop.noMatch }
        try c.skipClosingFence()
        return calls
    }

    /// `open`, JSON calls (more objects may follow, one per line), then `close` if given.
    static func block(_ open: String, _ close: String?) -> BlockReader {
        let openBytes = Array(open.utf8)
        let closeBytes = close.map { Array($0.utf8) }
        return { c in
            try c.expect(openBytes)
            var pieces = try calls(&c)
            while true {
                let save = c.index
                c.skipSpaces()
                guard try c.peekDeciding() == Lit.openBrace else { c.index = save; break }
                guard let more = Piece.jsonCalls(try c.json()) else { throw ScanStop.noMatch }
                pieces += more
            }
            if let closeBytes { try c.skipClosingTag(closeBytes) }
            return pieces
        }
    }

    /// An end-of-text token (GigaChat's `</s>`) that only spaces follow to the end: removed with
    /// them. Elsewhere (`</s>` closing a strikethrough in HTML) it is text.
    static func endOfText(_ token: String) -> BlockReader {
        let bytes = Array(token.utf8)
        return { c in
            try c.expect(bytes)
            c.skipSpaces()
            guard c.atEnd else { throw ScanStop.noMatch }
            guard c.isFinal else { throw ScanStop.needMore }
            return []
        }
    }

    static let toolCallOpen = [UInt8](literal: "<tool_call>")
    static let toolCallClose = [UInt8](literal: "</tool_call>")

    /// `<tool_call>` … `</tool_call>`, whose body is Hermes JSON, a Qwen3-Coder `<function=…>`
    /// or a GLM `name<arg_key>…`.
    static let toolCall: BlockReader = { c in
        try c.expect(toolCallOpen)
        try c.skipSpacesRequiringMore()
        let pieces: [Piece]
        switch try c.require() {
        case UInt8(ascii: "<"): pieces = [try XMLCallReaders.functionTag(&c)]
        case Lit.openBrace, UInt8(ascii: "["), UInt8(ascii: "`"): pieces = try calls(&c)
        default: pieces = [try XMLCallReaders.glmBody(&c)]
        }
        try c.skipClosingTag(toolCallClose)
        return pieces
    }

    private static let mistralOpen = [UInt8](literal: "[TOOL_CALLS]")
    private static let mistralCallId = [UInt8](literal: "[CALL_ID]")
    private static let mistralArgs = [UInt8](literal: "[ARGS]")

    /// Mistral: `[TOOL_CALLS][{...}]`, `[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}`, or (v11 without
    /// `[ARGS]`) `[TOOL_CALLS]name{...}`.
    static let mistral: BlockReader = { c in
        try c.expect(mistralOpen)
        try c.skipSpacesRequiringMore()
        switch try c.require() {
        case UInt8(ascii: "["), Lit.openBrace, UInt8(ascii: "`"): return try calls(&c)
        default:
            let name = try c.name()
            var id: String?
            if try c.accept(mistralCallId) { id = try c.name() }
            if try !c.accept(mistralArgs), try c.require() != Lit.openBrace { throw ScanStop.noMatch }
            guard let arguments = Piece.arguments(try c.json()) else { throw ScanStop.noMatch }
            return [.call(name: name, arguments: arguments, id: id)]
        }
    }

    private static let kimiSection = [UInt8](literal: "<|tool_calls_section_begin|>")
    private static let kimiSectionEnd = [UInt8](literal: "<|tool_calls_section_end|>")
    private static let kimiCall = [UInt8](literal: "<|tool_call_begin|>")
    private static let kimiArguments = [UInt8](literal: "<|tool_call_argument_begin|>")
    private static let kimiCallEnd = [UInt8](literal: "<|tool_call_end|>")

    /// Kimi K2: `<|tool_calls_section_begin|>` then `<|tool_call_begin|>functions.NAME:0`
    /// `<|tool_call_argument_begin|>{...}<|tool_call_end|>` per call.
    static let kimi: BlockReader = { c in
        let section = try c.accept(kimiSection)
        var pieces: [Piece] = []
        while true {
            let save = c.index
            c.skipSpaces()
            guard try c.accept(kimiCall) else { c.index = save; break }
            let callStart = c.index
            do {
                pieces.append(try kimiCallBody(&c))
            } catch ScanStop.noMatch where section {
                // One malformed call in a section is dropped; the others stand.
                c.index = callStart
                let id = try c.readValue(close: kimiCallEnd, orBefore: [kimiCall, kimiSectionEnd])
                guard id.closed else { throw ScanStop.noMatch }
                let head = String(id.value.prefix { $0 != "<" }).trimmingWhitespace()
                pieces.append(.malformedCall(name: String(head.prefix(256)), why: "its id is not functions.NAME:INDEX or its arguments are not a JSON object"))
            }
            if !section { break }
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        if section { try c.skipClosingTag(kimiSectionEnd) }
        return try Piece.someReadable(pieces)
    }

    /// One Kimi call after `<|tool_call_begin|>`: `functions.NAME:INDEX`, its JSON arguments, `<|tool_call_end|>`.
    private static func kimiCallBody(_ c: inout ByteCursor) throws -> Piece {
        let id = try c.readValue(close: kimiArguments, orBefore: [kimiCallEnd, kimiCall]).value.trimmingWhitespace()
        var name = Substring(id)
        if name.hasPrefix("functions.") { name = name.dropFirst("functions.".count) }
        if let colon = name.lastIndex(of: ":") {
            let index = name[name.index(after: colon)...]
            guard !index.isEmpty, index.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw ScanStop.noMatch }
            name = name[..<colon]
        }
        guard Piece.isPlausibleName(String(name)), let arguments = Piece.arguments(try c.json()) else { throw ScanStop.noMatch }
        try c.skipClosingTag(kimiCallEnd)
        return .call(name: String(name), arguments: arguments, id: id)
    }

    private static let deepSeekCalls = [UInt8](literal: "<｜tool▁calls▁begin｜>")
    private static let deepSeekCallsEnd = [UInt8](literal: "<｜tool▁calls▁end｜>")
    private static let deepSeekCall = [UInt8](literal: "<｜tool▁call▁begin｜>")
    private static let deepSeekSeparator = [UInt8](literal: "<｜tool▁sep｜>")
    private static let deepSeekCallEnd = [UInt8](literal: "<｜tool▁call▁end｜>")

    /// DeepSeek R1 and V3 (`function<｜tool▁sep｜>NAME` and a fenced JSON) and V3.1
    /// (`NAME<｜tool▁sep｜>{...}`), each call in `<｜tool▁call▁begin｜>`…`<｜tool▁call▁end｜>`.
    static let deepSeek: BlockReader = { c in
        let section = try c.accept(deepSeekCalls)
        var pieces: [Piece] = []
        while true {
            let save = c.index
            c.skipSpaces()
            guard try c.accept(deepSeekCall) else { c.index = save; break }
            let head = try c.read(upTo: deepSeekSeparator).trimmingWhitespace()
            let name: String
            if head == "function" {
                c.skipSpaces()
                name = try c.name()
            } else {
                name = head
            }
            guard Piece.isPlausibleName(name) else { throw ScanStop.noMatch }
            try c.skipOpeningFence()
            guard let arguments = Piece.arguments(try c.json()) else { throw ScanStop.noMatch }
            try c.skipClosingFence()
            try c.skipClosingTag(deepSeekCallEnd)
            pieces.append(.call(name: name, arguments: arguments, id: nil))
            if !section { break }
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        if section { try c.skipClosingTag(deepSeekCallsEnd) }
        return pieces
    }

    private static let apertusOpen = [UInt8](literal: "<|tools_prefix|>")
    private static let apertusClose = [UInt8](literal: "<|tools_suffix|>")

    /// Apertus: `<|tools_prefix|>[{"NAME": {...}}]<|tools_suffix|>`.
    static let apertus: BlockReader = { c in
        try c.expect(apertusOpen)
        let value = try c.json()
        let items = value.arrayValue ?? [value]
        var pieces: [Piece] = []
        for item in items {
            guard case .object(let object) = item, object.count == 1, let name = object.keys.first,
                  Piece.isPlausibleName(name), let arguments = Piece.arguments(object[name]) else {
                throw ScanStop.noMatch
            }
            pieces.append(.call(name: name, arguments: arguments, id: nil))
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        try c.skipClosingTag(apertusClose)
        return pieces
    }

    private static let pythonTag = [UInt8](literal: "<|python_tag|>")
    private static let llamaEnds = Marker.llamaEnds.map(\.literal)
    private static let dotCall = [UInt8](literal: ".call(")

    /// Llama 3.1 `<|python_tag|>`: JSON calls, a built-in `NAME.call(k=v)`, or code for `python`.
    static let llamaPythonTag: BlockReader = { c in
        try c.expect(pythonTag)
        try c.skipSpacesRequiringMore()
        if try c.require() == Lit.openBrace {
            var pieces = try calls(&c)
            while true {
                let save = c.index
                c.skipSpaces()
                if try c.accept([UInt8(ascii: ";")]) { c.skipSpaces() }
                guard try c.peekDeciding() == Lit.openBrace, let more = Piece.jsonCalls(try c.json()) else { c.index = save; break }
                pieces += more
            }
            return pieces
        }
        let save = c.index
        var builtin: String?
        while let byte = c.peek(), ByteCursor.isNameByte(byte), byte != UInt8(ascii: ".") { c.index += 1 }
        if c.index > save, try c.accept(dotCall) { builtin = c.text(save..<(c.index - dotCall.count)) }
        if let builtin {
            c.index -= 1
            let arguments = try PythonicCalls.argumentList(&c)
            return [.call(name: builtin, arguments: arguments, id: nil)]
        }
        c.index = save
        let (code, _) = try c.read(upToAny: llamaEnds)
        return [.call(name: "python", arguments: ["code": .string(code)], id: nil)]
    }

    private static let commandRAction = [UInt8](literal: "Action:")

    /// Command R+: `Action: ```json [{"tool_name": ..., "parameters": {...}}] ````.
    static let commandRPlus: BlockReader = { c in
        try c.expect(commandRAction)
        c.skipSpaces()
        guard c.check(Lit.fence) != .no else { throw ScanStop.noMatch }
        let pieces = try calls(&c)
        return pieces.filter { if case .call(let name, _, _) = $0 { name != "directly_answer" } else { true } }
    }

    private static let solarSection = [UInt8](literal: "<|tool_calls|>")
    private static let solarSectionEnd = [UInt8](literal: "<|calls|>")
    private static let solarCall = [UInt8](literal: "<|tool_call:begin|>")
    private static let solarName = [UInt8](literal: "<|tool_call:name|>")
    private static let solarArguments = [UInt8](literal: "<|tool_call:args|>")
    private static let solarCallEnd = [UInt8](literal: "<|tool_call:end|>")

    /// Solar Open: `<|tool_calls|>` then `<|tool_call:begin|>ID<|tool_call:name|>NAME`
    /// `<|tool_call:args|>{...}<|tool_call:end|>` per call, then `<|calls|>`.
    static let solar: BlockReader = { c in
        let section = try c.accept(solarSection)
        var pieces: [Piece] = []
        while true {
            let save = c.index
            c.skipSpaces()
            guard try c.accept(solarCall) else { c.index = save; break }
            let id = try c.read(upTo: solarName).trimmingWhitespace()
            let name = try c.read(upTo: solarArguments).trimmingWhitespace()
            guard id.utf8.count <= 256, Piece.isPlausibleName(name),
                  let arguments = Piece.arguments(try c.json()) else { throw ScanStop.noMatch }
            try c.skipClosingTag(solarCallEnd)
            pieces.append(.call(name: name, arguments: arguments, id: id.isEmpty ? nil : id))
            if !section { break }
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        if section { try c.skipClosingTag(solarSectionEnd) }
        return pieces
    }
}
