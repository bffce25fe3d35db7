/// `$ref` into the same document, and `allOf` merged into one schema.
extension SchemaConverter {
    mutating func referenceRule(_ pointer: String) throws -> String {
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
    func resolve(_ pointer: String) throws -> JSONValue {
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
    func merge(_ parts: [JSONValue]) throws -> JSONObject {
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
