/// The rules of each JSON type: objects, arrays, strings, integers and numbers.
extension SchemaConverter {
    // MARK: Objects

    mutating func objectExpression(_ schema: JSONObject, name: String) throws -> String {
        let (properties, required, additional) = try objectKeywords(schema)
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
        return objectBody(name: name, required: requiredRules, optional: optionalRules, additional: additionalRule)
    }

    /// An object schema's `properties`, `required` names and `additionalProperties` (nil when no
    /// others are written).
    private func objectKeywords(_ schema: JSONObject) throws -> (JSONObject, Set<String>, JSONValue?) {
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
        return (properties, required, additional)
    }

    /// The object's braces around its required pairs, then its optional ones and any others.
    private mutating func objectBody(name: String, required requiredRules: [String], optional optionalRules: [String],
                                     additional additionalRule: String?) -> String {
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

    mutating func arrayExpression(_ schema: JSONObject, name: String) throws -> String {
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

    mutating func stringExpression(_ schema: JSONObject, name: String) throws -> String {
        let minLength = try count(schema, "minLength") ?? 0
        let maxLength = try count(schema, "maxLength")
        if let maxLength, maxLength < minLength {
            throw LooplError(.invalidRequest, "The keyword `maxLength` (\(maxLength)) is less than `minLength` (\(minLength)).")
        }
        if let pattern = schema["pattern"] {
            guard case .string(let pattern) = pattern else {
                throw LooplError(.invalidRequest, "The keyword `pattern` must be a string.")
            }
            let char = builder.primitive("char")
            let lengths = minLength == 0 && maxLength == nil ? nil : RegexGrammar.Lengths(min: minLength, max: maxLength)
            do {
                let body: String
                do { body = try RegexGrammar.expression(pattern, char: char, lengths: lengths) } catch let error as RegexGrammar.Unsupported where lengths != nil {
                    body = try RegexGrammar.expression(pattern, char: char)
                    warn("minLength and maxLength are not enforced with the pattern \(JSONValue.string(pattern).jsonText()) (\(error.reason))")
                }
                return #""\"" "# + GrammarBuilder.group(body) + #" "\"""#
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
        if minLength == 0 && maxLength == nil { return builder.primitive("string") }
        let char = builder.primitive("char")
        let chars = GrammarBuilder.repetition(char, min: minLength, max: maxLength)
        return #""\"" "# + (chars.isEmpty ? "" : chars + " ") + #""\"""#
    }

    // MARK: Integers

    mutating func integerExpression(_ schema: JSONObject) throws -> String {
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
    mutating func numberExpression(_ schema: JSONObject) throws -> String {
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
}
