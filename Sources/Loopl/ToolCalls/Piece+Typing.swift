extension Piece {
    /// A loose call with its declared string parameters (in `schemas`, each tool's properties)
    /// given back their text; any other piece as it is.
    func typed(by schemas: [String: JSONObject]) -> Piece {
        guard case .looseCall(let name, var arguments, let raw) = self else { return self }
        if let properties = schemas[name] {
            for (key, text) in raw where Self.isStringOnly(properties[key]?["type"]) {
                arguments[key] = .string(text)
            }
        }
        return .call(name: name, arguments: arguments, id: nil)
    }

    /// Whether a schema's `type` allows strings only (or strings and null).
    static func isStringOnly(_ type: JSONValue?) -> Bool {
        switch type {
        case .string("string")?: true
        case .array(let types)?: types.contains(.string("string")) && types.allSatisfy { $0 == .string("string") || $0 == .string("null") }
        default: false
        }
    }
}
