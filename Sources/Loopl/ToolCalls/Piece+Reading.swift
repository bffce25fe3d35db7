/// How readers build pieces: calls from the JSON shapes models write them in, arguments, values
/// written as bare text, and names.
extension Piece {
    /// One call: `{"name", "arguments"}` with `parameters` (Llama 3, Command R) or `tool_name`
    /// (Command R) as synonyms, `{"function": {...}}` (OpenAI), arguments as an object or a JSON
    /// string; nil for anything else.
    static func jsonCall(_ value: JSONValue) -> Piece? {
        guard case .object(let object) = value else { return nil }
        let id = (object["id"] ?? object["tool_call_id"]).flatMap { $0.stringValue ?? $0.intValue.map(String.init) }
        if case .object(let function)? = object["function"], let inner = jsonCall(.object(function)) {
            guard case .call(let name, let arguments, let innerId) = inner else { return nil }
            return .call(name: name, arguments: arguments, id: id ?? innerId)
        }
        guard let name = (object["name"] ?? object["tool_name"])?.stringValue, isPlausibleName(name) else { return nil }
        let raw = object["arguments"] ?? object["parameters"]
        guard let arguments = arguments(raw) else { return nil }
        return .call(name: name, arguments: arguments, id: id)
    }

    /// Calls in any of the JSON shapes: one call, a non-empty list of calls, or the generic wrappers
    /// `{"tool_call": {...}}` and `{"tool_calls": [...]}`. `strict` (for JSON without a tag around
    /// it) also requires each call to name its arguments and to have no keys but a call's, so that
    /// data such as `{"name": "Ada", "age": 36}` is not a call.
    static func jsonCalls(_ value: JSONValue, strict: Bool = false) -> [Piece]? {
        switch value {
        case .array(let items):
            guard !items.isEmpty else { return nil }
            var pieces: [Piece] = []
            for item in items {
                guard !strict || looksLikeCall(item), let piece = jsonCall(item) else { return nil }
                pieces.append(piece)
            }
            return pieces
        case .object(let object):
            if object.count == 1, let inner = object["tool_call"] { return jsonCalls(inner, strict: strict) }
            if object.count == 1, let inner = object["tool_calls"], inner.arrayValue != nil { return jsonCalls(inner, strict: strict) }
            guard !strict || looksLikeCall(value) else { return nil }
            return jsonCall(value).map { [$0] }
        default:
            return nil
        }
    }

    private static let callKeys: Set<String> = ["name", "arguments", "parameters", "type", "id", "tool_call_id", "function"]

    private static func looksLikeCall(_ value: JSONValue) -> Bool {
        guard case .object(let object) = value, object.keys.allSatisfy(callKeys.contains) else { return false }
        if case .object(let function)? = object["function"] { return looksLikeCall(.object(function)) }
        return object["arguments"] != nil || object["parameters"] != nil
    }

    /// Arguments given as an object, a JSON string holding an object (empty means none), or missing.
    static func arguments(_ value: JSONValue?) -> JSONObject? {
        switch value {
        case nil, .null?: return [:]
        case .object(let object)?: return object
        case .string(let text)?:
            let trimmed = text.trimmingWhitespace()
            if trimmed.isEmpty { return [:] }
            guard case .object(let object)? = try? JSONValue(parsing: trimmed) else { return nil }
            return object
        default: return nil
        }
    }

    /// A parameter value written as bare text in XML-like markup: JSON when it reads as a JSON
    /// number, boolean, null, object or array; otherwise the text itself.
    static func looseValue(_ text: String) -> JSONValue {
        let trimmed = text.trimmingWhitespace()
        guard let first = trimmed.utf8.first, first != UInt8(ascii: "\"") else { return .string(text) }
        if let value = try? JSONValue(parsing: trimmed) { return value }
        return .string(text)
    }

    /// A function name: 1 to 256 bytes, no spaces or markup characters.
    static func isPlausibleName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= 256 else { return false }
        return !bytes.contains { ByteCursor.isSpace($0) || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") }
    }

    /// The value of an XML-ish parameter: one leading and one trailing `\n` removed, and nothing else.
    static func stripOneNewline(_ text: String) -> String {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "\n") { bytes = bytes.dropFirst() }
        if bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
        return String(Substring(bytes))
    }
}
