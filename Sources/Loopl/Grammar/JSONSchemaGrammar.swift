/// Converts a JSON Schema into a GBNF grammar whose every string is a JSON text the schema accepts.
///
/// Supported: `type` (one or a list), `properties`, `required`, `additionalProperties`, `enum`,
/// `const`, `items`, `prefixItems`, `minItems`, `maxItems`, `minLength`, `maxLength`, `pattern`
/// (regular expressions without look-around or back-references), `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum` (integers; whole-number bounds on numbers), `anyOf`, `oneOf`, `allOf`, `$ref` into the same
/// document, `nullable`, and `format` `date`, `time`, `date-time`, `uuid`. See docs/grammar.md.
package enum JSONSchemaGrammar {
    /// The grammar of the JSON texts that `schema` accepts, rooted at `root`.
    package static func convert(schema: JSONValue, spacing: GrammarSpacing = .separated) throws -> Grammar {
        var converter = SchemaConverter(spacing: spacing)
        _ = try converter.add(schema: schema, name: "")
        return Grammar(gbnf: converter.builder.text(), warnings: converter.warnings)
    }
}

/// Walks schemas and adds their rules to a ``GrammarBuilder``; several schemas can share one builder.
struct SchemaConverter {
    var builder = GrammarBuilder()
    private(set) var warnings: [String] = []
    /// The document that `$ref`s resolve in, and the rule-name prefix its references get.
    var document: JSONValue = .null
    var referencePrefix = ""
    var references: [String: String] = [:]

    init(spacing: GrammarSpacing = .separated) {
        builder.spacing = spacing
        builder.primitive("space")
    }

    /// Adds the rules of `schema` under `name` ("" for root) and returns the rule's name.
    mutating func add(schema: JSONValue, name: String) throws -> String {
        let saved = (document, referencePrefix)
        document = schema
        referencePrefix = name.isEmpty ? "" : name + "-"
        defer { (document, referencePrefix) = saved }
        return try visit(schema, name: name)
    }

    /// Rule name for a schema at `name`; "" means root.
    private func ruleName(_ name: String) -> String {
        name.isEmpty ? "root" : GrammarBuilder.isReserved(name) ? name + "-" : name
    }

    func child(_ name: String, _ suffix: String) -> String {
        name.isEmpty ? suffix : name + "-" + suffix
    }

    mutating func visit(_ schema: JSONValue, name: String) throws -> String {
        let body = try expression(schema, name: name)
        if !name.isEmpty, GrammarBuilder.isReserved(body) || body == ruleName(name) { return body }
        return builder.add(ruleName(name), body)
    }

    /// A GBNF expression for `schema`; sub-schemas become rules named after `name`.
    mutating func expression(_ schema: JSONValue, name: String) throws -> String {
        switch schema {
        case .bool(true): return builder.primitive("value")
        case .bool(false):
            throw LooplError(.invalidRequest, "The schema `false` accepts nothing, so no grammar can be made for it.")
        case .object(let object): return try expression(object, name: name)
        default:
            throw LooplError(.invalidRequest, "A JSON Schema must be an object or a boolean, not \(schema.jsonText()).")
        }
    }

    mutating func expression(_ schema: JSONObject, name: String) throws -> String {
        try checkKeywords(schema)
        if let combined = try combination(schema, name: name) { return combined }
        if let constant = schema["const"] {
            return Grammar.literal(constant.jsonText())
        }
        if let values = schema["enum"] {
            guard case .array(let values) = values, !values.isEmpty else {
                throw LooplError(.invalidRequest, "The keyword `enum` must be a non-empty array.")
            }
            return values.map { Grammar.literal($0.jsonText()) }.joined(separator: " | ")
        }
        return try typeExpression(schema, name: name)
    }

    /// The rule of a schema that is `nullable`, a `$ref`, `allOf`, `anyOf` or `oneOf`; nil for others.
    private mutating func combination(_ schema: JSONObject, name: String) throws -> String? {
        var schema = schema
        if schema["nullable"]?.boolValue == true {
            schema["nullable"] = nil
            return try union([.object(schema), ["type": "null"]], name: name)
        }
        if let reference = schema["$ref"] {
            schema["$ref"] = nil
            guard case .string(let pointer) = reference else {
                throw LooplError(.invalidRequest, "The keyword `$ref` must be a string, not \(reference.jsonText()).")
            }
            if !hasAssertions(schema) { return try referenceRule(pointer) }
            return try expression(.object(try merge([.object(schema), try resolve(pointer)])), name: name)
        }
        if let parts = schema["allOf"] {
            schema["allOf"] = nil
            guard case .array(let parts) = parts, !parts.isEmpty else {
                throw LooplError(.invalidRequest, "The keyword `allOf` must be a non-empty array of schemas.")
            }
            return try expression(.object(try merge([.object(schema)] + parts)), name: name)
        }
        for keyword in ["anyOf", "oneOf"] {
            guard let alternatives = schema[keyword] else { continue }
            schema[keyword] = nil
            guard case .array(let alternatives) = alternatives, !alternatives.isEmpty else {
                throw LooplError(.invalidRequest, "The keyword `\(keyword)` must be a non-empty array of schemas.")
            }
            if !hasAssertions(schema) { return try union(alternatives, name: name) }
            return try union(try alternatives.map { .object(try merge([.object(schema), $0])) }, name: name)
        }
        return nil
    }

    /// The rule of a schema by its `type`, or by the keywords of one type when it has none.
    private mutating func typeExpression(_ schema: JSONObject, name: String) throws -> String {
        var schema = schema
        switch schema["type"] {
        case .array(let types)?:
            guard !types.isEmpty else {
                throw LooplError(.invalidRequest, "The keyword `type` must not be an empty list.")
            }
            if types.count == 1 {
                schema["type"] = types[0]
                return try expression(schema, name: name)
            }
            return try union(types.map { type in
                var single = schema
                single["type"] = type
                return .object(single)
            }, name: name)
        case .string(let type)?:
            return try typed(type, schema, name: name)
        case nil:
            if schema["properties"] != nil || schema["additionalProperties"] != nil || schema["required"] != nil {
                return try typed("object", schema, name: name)
            }
            if schema["items"] != nil || schema["prefixItems"] != nil {
                return try typed("array", schema, name: name)
            }
            return builder.primitive("value")
        case let other?:
            throw LooplError(.invalidRequest, "The keyword `type` must be a string or a list of strings, not \(other.jsonText()).")
        }
    }

    private mutating func union(_ alternatives: [JSONValue], name: String) throws -> String {
        var rules: [String] = []
        for (index, alternative) in alternatives.enumerated() {
            rules.append(try visit(alternative, name: child(name, "alt-\(index)")))
        }
        return rules.joined(separator: " | ")
    }

    private mutating func typed(_ type: String, _ schema: JSONObject, name: String) throws -> String {
        switch type {
        case "object": return try objectExpression(schema, name: name)
        case "array": return try arrayExpression(schema, name: name)
        case "string": return try stringExpression(schema, name: name)
        case "integer": return try integerExpression(schema)
        case "number": return try numberExpression(schema)
        case "boolean": return builder.primitive("boolean")
        case "null": return builder.primitive("null")
        default:
            throw LooplError(.invalidRequest, "The type `\(type)` is not a JSON Schema type.")
        }
    }


    static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "$defs", "definitions", "$anchor", "$vocabulary", "title", "description",
        "default", "examples", "example", "deprecated", "readOnly", "writeOnly", "strict",
        "contentMediaType", "contentEncoding", "contentSchema",
    ]
    static let enforced: Set<String> = [
        "type", "properties", "required", "additionalProperties", "enum", "const", "items", "prefixItems",
        "additionalItems", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf", "$ref", "nullable", "format",
    ]
    /// Keywords whose checks the grammar leaves out; leaving each out only loosens the grammar.
    static let loosened: Set<String> = [
        "uniqueItems", "multipleOf", "minProperties", "maxProperties", "contains", "minContains", "maxContains",
        "propertyNames", "dependentRequired", "dependentSchemas", "dependencies", "not", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties",
    ]
    /// Keywords that cannot be ignored without rejecting instances the schema accepts.
    static let unsupported: Set<String> = ["patternProperties", "$dynamicRef", "$recursiveRef"]

    private mutating func checkKeywords(_ schema: JSONObject) throws {
        for key in schema.keys {
            if Self.unsupported.contains(key) {
                throw LooplError(.invalidRequest, "The JSON Schema keyword `\(key)` is not supported by the grammar converter.")
            }
            if Self.loosened.contains(key), !["uniqueItems", "multipleOf", "contains"].contains(key) {
                warn("`\(key)` is not enforced")
            } else if !Self.annotations.contains(key), !Self.enforced.contains(key), !Self.loosened.contains(key),
                      !key.hasPrefix("x-") {
                warn("the unknown keyword `\(key)` is ignored")
            }
        }
    }

    /// True when `schema` constrains instances (more than annotations).
    private func hasAssertions(_ schema: JSONObject) -> Bool {
        schema.keys.contains { !Self.annotations.contains($0) && !$0.hasPrefix("x-") }
    }

    func isAnything(_ schema: JSONValue) -> Bool {
        switch schema {
        case .bool(true): return true
        case .object(let object): return !hasAssertions(object)
        default: return false
        }
    }

    mutating func warn(_ message: String) {
        if !warnings.contains(message) { warnings.append(message) }
    }
}
