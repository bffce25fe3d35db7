/// Converts a JSON Schema into a GBNF grammar whose every string is a JSON text the schema accepts.
///
/// Supported: `type` (one or a list), `properties`, `required`, `additionalProperties`, `enum`,
/// `const`, `items`, `prefixItems`, `minItems`, `maxItems`, `minLength`, `maxLength`, `pattern`
/// (regular expressions without look-around or back-references), `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum` (integers; whole-number bounds on numbers), `anyOf`, `oneOf`, `allOf`, `$ref` into the same
/// document, `nullable`, and `format` `date`, `time`, `date-time`, `uuid`. See docs/grammar.md.
public enum JSONSchemaGrammar {
    /// The grammar of the JSON texts that `schema` accepts, rooted at `root`.
    public static func convert(schema: JSONValue) throws -> Grammar {
        var converter = SchemaConverter()
        _ = try converter.add(schema: schema, name: "")
        return Grammar(gbnf: converter.builder.text(), warnings: converter.warnings)
    }
}

/// Walks schemas and adds their rules to a ``GrammarBuilder``; several schemas can share one builder.
struct SchemaConverter {
    var builder = GrammarBuilder()
    private(set) var warnings: [String] = []
    /// The document that `$ref`s resolve in, and the rule-name prefix its references get.
    private var document: JSONValue = .null
    private var referencePrefix = ""
    private var references: [String: String] = [:]

    init() {
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

    private func child(_ name: String, _ suffix: String) -> String {
        name.isEmpty ? suffix : name + "-" + suffix
    }

    mutating func visit(_ schema: JSONValue, name: String) throws -> String {
        let body = try expression(schema, name: name)
        if !name.isEmpty, GrammarBuilder.isReserved(body) || body == ruleName(name) { return body }
        return builder.add(ruleName(name), body)
    }

    /// A GBNF expression for `schema`; sub-schemas become rules named after `name`.
    private mutating func expression(_ schema: JSONValue, name: String) throws -> String {
        switch schema {
        case .bool(true): return builder.primitive("value")
        case .bool(false):
            throw LooplError(.invalidRequest, "The schema `false` accepts nothing, so no grammar can be made for it.")
        case .object(let object): return try expression(object, name: name)
        default:
            throw LooplError(.invalidRequest, "A JSON Schema must be an object or a boolean, not \(schema.jsonText()).")
        }
    }

    private mutating func expression(_ schema: JSONObject, name: String) throws -> String {
        try checkKeywords(schema)
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
        if let constant = schema["const"] {
            return Grammar.literal(constant.jsonText())
        }
        if let values = schema["enum"] {
            guard case .array(let values) = values, !values.isEmpty else {
                throw LooplError(.invalidRequest, "The keyword `enum` must be a non-empty array.")
            }
            return values.map { Grammar.literal($0.jsonText()) }.joined(separator: " | ")
        }
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

    // MARK: Objects

    private mutating func objectExpression(_ schema: JSONObject, name: String) throws -> String {
        let properties = schema["properties"]?.objectValue ?? JSONObject()
        if schema["properties"] != nil && schema["properties"]?.objectValue == nil {
            throw LooplError(.invalidRequest, "The keyword `properties` must be an object.")
        }
        var required: Set<String> = []
        if let list = schema["required"] {
            guard case .array(let names) = list, names.allSatisfy({ $0.stringValue != nil }) else {
                throw LooplError(.invalidRequest, "The keyword `required` must be an array of property names.")
            }
            required = Set(names.compactMap(\.stringValue))
        }
        // Without `properties`, an object is open unless `additionalProperties` says otherwise;
        // with `properties`, only the declared ones are written unless `additionalProperties` allows more.
        var additional: JSONValue? = schema["properties"] == nil ? .bool(true) : nil
        if let value = schema["additionalProperties"] {
            switch value {
            case .bool(false): additional = nil
            case .bool(true), .object: additional = value
            default:
                throw LooplError(.invalidRequest, "The keyword `additionalProperties` must be a boolean or a schema.")
            }
        }
        if properties.isEmpty, required.isEmpty, let additional, isAnything(additional) {
            return builder.primitive("object")
        }
        for name in required where properties[name] == nil && additional == nil {
            throw LooplError(.invalidRequest, "The required property `\(name)` is not among the schema's `properties`.")
        }

        var requiredRules: [String] = []
        var optionalRules: [String] = []
        for (property, propertySchema) in properties {
            let valueRule = try visit(propertySchema, name: child(name, property))
            let kv = builder.add(child(name, property) + "-kv",
                                 Grammar.literal(JSONValue.string(property).jsonText()) + #" space ":" space "# + valueRule)
            if required.contains(property) { requiredRules.append(kv) } else { optionalRules.append(kv) }
        }
        var additionalRule: String?
        if let additional {
            let valueRule = isAnything(additional) ? builder.primitive("value")
                : try visit(additional, name: child(name, "additional-value"))
            let keyRule = properties.isEmpty ? builder.primitive("string")
                : builder.add(child(name, "additional-key"), otherString(than: properties.keys))
            additionalRule = builder.add(child(name, "additional-kv"), keyRule + #" ":" space "# + valueRule)
        }

        var body = #""{" space "#
        body += requiredRules.joined(separator: #" "," space "#)
        var optionalTail: [String] = optionalRules.map { #"( "," space \#($0) )?"# }
        if let additionalRule { optionalTail.append(#"( "," space \#(additionalRule) )*"#) }
        if !requiredRules.isEmpty {
            if !optionalTail.isEmpty { body += " " + optionalTail.joined(separator: " ") }
        } else if !optionalTail.isEmpty {
            // No required property: the first written one has no comma before it.
            var firsts: [String] = []
            var leads: [String] = optionalRules
            if let additionalRule { leads.append(additionalRule) }
            for index in leads.indices {
                let rest = optionalTail[(index + 1)...]
                var first = leads[index]
                if index == optionalRules.count { first += " " + optionalTail[index] } // more additional ones
                if !rest.isEmpty {
                    first += " " + builder.add(child(name, "rest-\(index + 1)"), rest.joined(separator: " "))
                }
                firsts.append(first)
            }
            body += "( " + firsts.joined(separator: " | ") + " )?"
        }
        return body + #" space "}""#
    }

    /// A JSON string rule that matches any string except the given ones.
    private mutating func otherString(than excluded: [String]) -> String {
        let char = builder.primitive("char")
        let texts = excluded.map { String(JSONValue.string($0).jsonText().dropFirst().dropLast()) }
        if texts.contains(where: { $0.contains("\\") }) { return builder.primitive("string") }
        let trie = Trie(texts)
        return #""\"" "# + trie.exclusion(node: 0, char: char, isRoot: true) + #" "\"""#
    }

    // MARK: Arrays

    private mutating func arrayExpression(_ schema: JSONObject, name: String) throws -> String {
        let minItems = try count(schema, "minItems") ?? 0
        let maxItems = try count(schema, "maxItems")
        if let maxItems, maxItems < minItems {
            throw LooplError(.invalidRequest, "The keyword `maxItems` (\(maxItems)) is less than `minItems` (\(minItems)).")
        }
        if schema["uniqueItems"]?.boolValue == true { warn("`uniqueItems` is not enforced") }
        if schema["contains"] != nil { warn("`contains` is not enforced") }
        var prefix: [JSONValue] = []
        var rest: JSONValue? = schema["items"] ?? .bool(true)
        if case .array(let tuple)? = schema["prefixItems"] {
            prefix = tuple
            rest = schema["items"] ?? nil
        } else if schema["prefixItems"] != nil {
            throw LooplError(.invalidRequest, "The keyword `prefixItems` must be an array of schemas.")
        } else if case .array(let tuple)? = schema["items"] {
            prefix = tuple
            rest = schema["additionalItems"] ?? nil
        }
        if case .bool(false)? = rest { rest = nil }
        if prefix.isEmpty, minItems == 0, maxItems == nil, let rest, isAnything(rest) {
            return builder.primitive("array")
        }
        var parts: [String] = []
        for (index, item) in prefix.enumerated() {
            parts.append(try visit(item, name: child(name, "tuple-\(index)")))
        }
        var body = #""[" space "#
        body += parts.joined(separator: #" "," space "#)
        if let rest {
            let itemRule = isAnything(rest) ? builder.primitive("value") : try visit(rest, name: child(name, "item"))
            let low = Swift.max(minItems - prefix.count, 0)
            let high = maxItems.map { Swift.max($0 - prefix.count, 0) }
            if parts.isEmpty {
                body += GrammarBuilder.repetition(itemRule, min: low, max: high, separator: #"",""# + " space")
            } else {
                let more = GrammarBuilder.repetition(#""," space "# + itemRule, min: low, max: high)
                if !more.isEmpty { body += " " + more }
            }
        } else if minItems > prefix.count {
            throw LooplError(.invalidRequest, "The keyword `minItems` asks for more items than `prefixItems` allows.")
        }
        return body + #" space "]""#
    }

    // MARK: Strings

    private mutating func stringExpression(_ schema: JSONObject, name: String) throws -> String {
        if let pattern = schema["pattern"] {
            guard case .string(let pattern) = pattern else {
                throw LooplError(.invalidRequest, "The keyword `pattern` must be a string.")
            }
            do {
                let char = builder.primitive("char")
                return #""\"" "# + GrammarBuilder.group(try RegexGrammar.expression(pattern, char: char)) + #" "\"""#
            } catch let error as RegexGrammar.Unsupported {
                warn("the pattern \(JSONValue.string(pattern).jsonText()) is not enforced (\(error.reason))")
            }
        }
        if let format = schema["format"]?.stringValue {
            switch format {
            case "uuid": return builder.primitive("uuid")
            case "date", "time", "date-time": return builder.primitive(format + "-string")
            default: warn("the format `\(format)` is not enforced")
            }
        }
        let minLength = try count(schema, "minLength") ?? 0
        let maxLength = try count(schema, "maxLength")
        if let maxLength, maxLength < minLength {
            throw LooplError(.invalidRequest, "The keyword `maxLength` (\(maxLength)) is less than `minLength` (\(minLength)).")
        }
        if minLength == 0 && maxLength == nil { return builder.primitive("string") }
        let char = builder.primitive("char")
        let chars = GrammarBuilder.repetition(char, min: minLength, max: maxLength)
        return #""\"" "# + (chars.isEmpty ? "" : chars + " ") + #""\"""#
    }

    // MARK: Integers

    private mutating func integerExpression(_ schema: JSONObject) throws -> String {
        var minimum: Int?, maximum: Int?
        if let value = schema["minimum"] { minimum = try bound(value, "minimum", up: true) }
        if let value = schema["maximum"] { maximum = try bound(value, "maximum", up: false) }
        switch schema["exclusiveMinimum"] {
        case .bool(true)?: minimum = minimum.map { $0 + 1 }
        case .bool(false)?, nil: break
        case let value?: minimum = Swift.max(minimum ?? Int.min, try exclusive(value, "exclusiveMinimum", up: true))
        }
        switch schema["exclusiveMaximum"] {
        case .bool(true)?: maximum = maximum.map { $0 - 1 }
        case .bool(false)?, nil: break
        case let value?: maximum = Swift.min(maximum ?? Int.max, try exclusive(value, "exclusiveMaximum", up: false))
        }
        if schema["multipleOf"] != nil { warn("`multipleOf` is not enforced") }
        if minimum == nil && maximum == nil { return builder.primitive("integer") }
        if let minimum, let maximum, minimum > maximum {
            throw LooplError(.invalidRequest, "No integer lies between `minimum` \(minimum) and `maximum` \(maximum).")
        }
        return IntegerRange.expression(minimum: minimum, maximum: maximum)
    }

    /// Numbers; whole-number `minimum` and `maximum` are enforced (and exclude exponents), other bounds are not.
    private mutating func numberExpression(_ schema: JSONObject) throws -> String {
        if schema["multipleOf"] != nil { warn("`multipleOf` is not enforced") }
        for keyword in ["exclusiveMinimum", "exclusiveMaximum"] where schema[keyword] != nil && schema[keyword] != .bool(false) {
            warn("`\(keyword)` on a number is not enforced")
        }
        var bounds: [Int?] = []
        for keyword in ["minimum", "maximum"] {
            switch schema[keyword] {
            case nil: bounds.append(nil)
            case .integer(let i)? where abs(i) < 1_000_000_000_000_000: bounds.append(i)
            case .double(let d)? where d == d.rounded() && abs(d) < 1e15: bounds.append(Int(d))
            case .integer?, .double?:
                warn("`\(keyword)` on a number is enforced only when it is a whole number")
                bounds.append(nil)
            case let value?:
                throw LooplError(.invalidRequest, "The keyword `\(keyword)` must be a number, not \(value.jsonText()).")
            }
        }
        let minimum = bounds[0], maximum = bounds[1]
        if minimum == nil && maximum == nil { return builder.primitive("number") }
        if let minimum, let maximum, minimum > maximum {
            throw LooplError(.invalidRequest, "No number lies between `minimum` \(minimum) and `maximum` \(maximum).")
        }
        return IntegerRange.number(minimum: minimum, maximum: maximum)
    }

    /// An inclusive integer bound from a number; `up` rounds a fraction up (for minimums).
    private func bound(_ value: JSONValue, _ keyword: String, up: Bool) throws -> Int {
        switch value {
        case .integer(let i): return i
        case .double(let d) where d.isFinite && abs(d) < 1e17: return Int(up ? d.rounded(.up) : d.rounded(.down))
        default: throw LooplError(.invalidRequest, "The keyword `\(keyword)` must be a number, not \(value.jsonText()).")
        }
    }

    private func exclusive(_ value: JSONValue, _ keyword: String, up: Bool) throws -> Int {
        switch value {
        case .integer(let i): return up ? i + 1 : i - 1
        case .double(let d) where d.isFinite && abs(d) < 1e17:
            return up ? Int(d.rounded(.down)) + 1 : Int(d.rounded(.up)) - 1
        default: throw LooplError(.invalidRequest, "The keyword `\(keyword)` must be a number, not \(value.jsonText()).")
        }
    }

    private func count(_ schema: JSONObject, _ keyword: String) throws -> Int? {
        guard let value = schema[keyword] else { return nil }
        if case .integer(let n) = value, n >= 0 { return n }
        if case .double(let d) = value, d >= 0, d == d.rounded(), d < 1e9 { return Int(d) }
        throw LooplError(.invalidRequest, "The keyword `\(keyword)` must be a non-negative integer, not \(value.jsonText()).")
    }

    // MARK: References

    private mutating func referenceRule(_ pointer: String) throws -> String {
        if let rule = references[referencePrefix + pointer] { return rule }
        let target = try resolve(pointer)
        let fragment = pointer.drop { $0 != "#" }.dropFirst()
        let rule = builder.reserve(referencePrefix + "ref" + (fragment.isEmpty ? "-root" : String(fragment)))
        references[referencePrefix + pointer] = rule
        let body = try expression(target, name: rule)
        builder.define(rule, body)
        return rule
    }

    /// The schema that `pointer` (`#`, `#/$defs/Name`, `#/definitions/Name`, any JSON pointer) names.
    private func resolve(_ pointer: String) throws -> JSONValue {
        guard pointer.hasPrefix("#") else {
            throw LooplError(.invalidRequest, "The `$ref` \(pointer) points outside the schema; only references into the same schema (`#/...`) are supported.")
        }
        var node = document
        let path = pointer.dropFirst()
        if path.isEmpty { return node }
        guard path.hasPrefix("/") else {
            throw LooplError(.invalidRequest, "The `$ref` \(pointer) is not a JSON pointer; anchors are not supported.")
        }
        for rawToken in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = String(rawToken).removingPercentEncoding().replacing("~1", with: "/").replacing("~0", with: "~")
            switch node {
            case .object(let object) where object[token] != nil: node = object[token] ?? .null
            case .array(let array) where Int(token).map({ array.indices.contains($0) }) ?? false: node = array[Int(token) ?? 0]
            default: throw LooplError(.invalidRequest, "The `$ref` \(pointer) points to nothing in the schema.")
            }
        }
        return node
    }

    // MARK: allOf

    /// One schema that asks what all of `parts` ask, for parts that can be combined keyword by keyword.
    private func merge(_ parts: [JSONValue]) throws -> JSONObject {
        var result = JSONObject()
        for part in parts {
            var part = part
            while case .object(let object) = part, case .string(let pointer)? = object["$ref"] {
                var rest = object
                rest["$ref"] = nil
                part = .object(try merge([.object(rest), try resolve(pointer)]))
            }
            switch part {
            case .bool(true): continue
            case .object(var object):
                if case .array(let inner)? = object["allOf"] {
                    object["allOf"] = nil
                    object = try merge([.object(object)] + inner)
                }
                for (key, value) in object {
                    result[key] = try combine(key, result[key], value)
                }
            default:
                throw LooplError(.invalidRequest, "An `allOf` part must be a schema object, not \(part.jsonText()).")
            }
        }
        return result
    }

    private func combine(_ key: String, _ old: JSONValue?, _ new: JSONValue) throws -> JSONValue {
        guard let old, old != new else { return new }
        switch key {
        case "properties":
            guard case .object(var merged) = old, case .object(let more) = new else { break }
            for (name, schema) in more {
                merged[name] = merged[name].map { ["allOf": [$0, schema]] } ?? schema
            }
            return .object(merged)
        case "required":
            guard case .array(let a) = old, case .array(let b) = new else { break }
            return .array(a + b.filter { !a.contains($0) })
        case "minimum", "minLength", "minItems", "exclusiveMinimum":
            if let a = old.doubleValue, let b = new.doubleValue { return a >= b ? old : new }
        case "maximum", "maxLength", "maxItems", "exclusiveMaximum":
            if let a = old.doubleValue, let b = new.doubleValue { return a <= b ? old : new }
        case "type":
            let a = old.arrayValue ?? [old], b = new.arrayValue ?? [new]
            var both = a.filter { b.contains($0) }
            if both.isEmpty, a.contains("integer") || b.contains("integer"), a.contains("number") || b.contains("number") {
                both = ["integer"]
            }
            if both.isEmpty { throw LooplError(.invalidRequest, "The parts of an `allOf` have no `type` in common.") }
            return both.count == 1 ? both[0] : .array(both)
        case "enum":
            guard case .array(let a) = old, case .array(let b) = new else { break }
            let both = a.filter { b.contains($0) }
            if both.isEmpty { throw LooplError(.invalidRequest, "The parts of an `allOf` have no `enum` value in common.") }
            return .array(both)
        case "additionalProperties":
            return old == .bool(false) || new == .bool(false) ? .bool(false) : ["allOf": [old, new]]
        case "items":
            return ["allOf": [old, new]]
        case "description", "title", "default", "examples", "$comment", "$schema", "$id":
            return old
        default: break
        }
        throw LooplError(.invalidRequest, "The parts of an `allOf` give the keyword `\(key)` different values; combining them is not supported.")
    }

    // MARK: Keywords

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

    private func isAnything(_ schema: JSONValue) -> Bool {
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

extension String {
    /// The string with `%XX` escapes decoded; invalid escapes are kept as written.
    func removingPercentEncoding() -> String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        let utf8 = Array(self.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count,
               let byte = UInt8(String(decoding: utf8[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
