/// Checks a call's arguments against the top level of its tool's JSON Schema: required
/// properties present, declared types respected, no extra properties where the schema forbids them.
enum ArgumentCheck {
    /// A sentence naming what is wrong, or nil when the arguments fit.
    static func problem(_ arguments: JSONObject, schema: JSONValue) -> String? {
        let properties = schema["properties"]?.objectValue ?? [:]
        for case .string(let name) in schema["required"]?.arrayValue ?? [] where arguments[name] == nil {
            return "the required argument '\(name)' is missing."
        }
        for (name, value) in arguments {
            guard let property = properties[name] else {
                if schema["additionalProperties"] == .bool(false) { return "there is no argument named '\(name)'." }
                continue
            }
            let types: [String] = property["type"]?.stringValue.map { [$0] }
                ?? property["type"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !types.isEmpty, !types.contains(where: { fits(value, type: $0) }) {
                return "'\(name)' should be \(types.joined(separator: " or ")), not \(value.jsonText())."
            }
            if let options = property["enum"]?.arrayValue, !options.contains(value) {
                return "'\(name)' must be one of \(JSONValue.array(options).jsonText())."
            }
        }
        return nil
    }

    private static func fits(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("null", .null), ("array", .array), ("object", .object),
             ("integer", .integer), ("number", .integer), ("number", .double):
            return true
        case ("integer", .double(let d)):
            return d.rounded() == d
        default:
            return false
        }
    }
}
