import Loopl

/// Checks a JSON value against a JSON Schema, for tests of constrained output.
///
/// It knows the keywords the grammar converter enforces (see docs/grammar.md) and reads them as
/// JSON Schema defines them; it returns the reasons a value fails, empty when it passes.
public struct SchemaValidator: Sendable {
    public let root: JSONValue

    public init(schema: JSONValue) {
        root = schema
    }

    /// Why `value` does not satisfy the schema; empty when it does.
    public func errors(_ value: JSONValue) -> [String] {
        var found: [String] = []
        check(value, root, "$", &found, depth: 0)
        return found
    }

    private func check(_ value: JSONValue, _ schema: JSONValue, _ path: String, _ found: inout [String], depth: Int) {
        guard depth < 64 else { found.append("\(path): schema nesting too deep"); return }
        guard case .object(let s) = schema else {
            if schema == .bool(false) { found.append("\(path): false schema") }
            return
        }
        if s["nullable"]?.boolValue == true, value == .null { return }
        if let ref = s["$ref"]?.stringValue {
            if let target = resolve(ref) { check(value, target, path, &found, depth: depth + 1) }
            else { found.append("\(path): unresolved \(ref)") }
        }
        if let parts = s["allOf"]?.arrayValue {
            for part in parts { check(value, part, path, &found, depth: depth + 1) }
        }
        if let alternatives = s["anyOf"]?.arrayValue {
            if !alternatives.contains(where: { passes(value, $0, depth) }) { found.append("\(path): no anyOf alternative") }
        }
        if let alternatives = s["oneOf"]?.arrayValue {
            let count = alternatives.filter { passes(value, $0, depth) }.count
            if count != 1 { found.append("\(path): \(count) oneOf alternatives match") }
        }
        if let constant = s["const"], !same(constant, value) { found.append("\(path): not the const") }
        if let values = s["enum"]?.arrayValue, !values.contains(where: { same($0, value) }) {
            found.append("\(path): not in enum")
        }
        if let type = s["type"] {
            let types = (type.arrayValue ?? [type]).compactMap(\.stringValue)
            if !types.contains(where: { has(value, type: $0) }) {
                found.append("\(path): not of type \(types.joined(separator: "|"))")
                return
            }
        }
        switch value {
        case .object(let object): checkObject(object, s, path, &found, depth: depth)
        case .array(let items): checkArray(items, s, path, &found, depth: depth)
        case .string(let text): checkString(text, s, path, &found)
        case .integer, .double: checkNumber(value.doubleValue ?? 0, s, path, &found)
        default: break
        }
    }

    private func checkObject(_ object: JSONObject, _ s: JSONObject, _ path: String, _ found: inout [String], depth: Int) {
        let properties = s["properties"]?.objectValue ?? JSONObject()
        for name in s["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
            found.append("\(path): missing \(name)")
        }
        for (key, member) in object {
            if let propertySchema = properties[key] {
                check(member, propertySchema, path + "." + key, &found, depth: depth + 1)
            } else if let additional = s["additionalProperties"] {
                check(member, additional, path + "." + key, &found, depth: depth + 1)
            }
        }
    }

    private func checkArray(_ items: [JSONValue], _ s: JSONObject, _ path: String, _ found: inout [String], depth: Int) {
        if let low = s["minItems"]?.intValue, items.count < low { found.append("\(path): fewer than \(low) items") }
        if let high = s["maxItems"]?.intValue, items.count > high { found.append("\(path): more than \(high) items") }
        var prefix: [JSONValue] = s["prefixItems"]?.arrayValue ?? []
        var rest = s["items"]
        if s["prefixItems"] == nil, case .array(let tuple)? = s["items"] {
            prefix = tuple
            rest = s["additionalItems"]
        }
        for (index, item) in items.enumerated() {
            if index < prefix.count { check(item, prefix[index], "\(path)[\(index)]", &found, depth: depth + 1) }
            else if let rest { check(item, rest, "\(path)[\(index)]", &found, depth: depth + 1) }
        }
    }

    private func checkString(_ text: String, _ s: JSONObject, _ path: String, _ found: inout [String]) {
        let length = text.unicodeScalars.count
        if let low = s["minLength"]?.intValue, length < low { found.append("\(path): shorter than \(low)") }
        if let high = s["maxLength"]?.intValue, length > high { found.append("\(path): longer than \(high)") }
        if let pattern = s["pattern"]?.stringValue, let regex = try? Regex(pattern), (try? regex.firstMatch(in: text)) == nil {
            found.append("\(path): does not match \(pattern)")
        }
        if let format = s["format"]?.stringValue, let regex = SchemaValidator.formats[format],
           (try? Regex(regex).wholeMatch(in: text)) == nil {
            found.append("\(path): not a \(format)")
        }
    }

    private func checkNumber(_ number: Double, _ s: JSONObject, _ path: String, _ found: inout [String]) {
        if let low = s["minimum"]?.doubleValue, number < low { found.append("\(path): below \(low)") }
        if let high = s["maximum"]?.doubleValue, number > high { found.append("\(path): above \(high)") }
        if let low = s["exclusiveMinimum"]?.doubleValue, number <= low { found.append("\(path): not above \(low)") }
        if let high = s["exclusiveMaximum"]?.doubleValue, number >= high { found.append("\(path): not below \(high)") }
    }

    static let formats: [String: String] = [
        "date": #"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"#,
        "time": #"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"#,
        "date-time": #"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"#,
        "uuid": #"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#,
    ]

    private func passes(_ value: JSONValue, _ schema: JSONValue, _ depth: Int) -> Bool {
        var found: [String] = []
        check(value, schema, "", &found, depth: depth + 1)
        return found.isEmpty
    }

    private func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
             ("number", .integer), ("number", .double), ("integer", .integer): return true
        case ("integer", .double(let d)): return d == d.rounded()
        default: return false
        }
    }

    /// JSON equality: 1 and 1.0 are the same number.
    private func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }

    private func resolve(_ pointer: String) -> JSONValue? {
        guard pointer.hasPrefix("#") else { return nil }
        var node = root
        for token in pointer.dropFirst().split(separator: "/") {
            let key = String(token).replacing("~1", with: "/").replacing("~0", with: "~")
            if let next = node[key] { node = next } else if let index = Int(key), let array = node.arrayValue, array.indices.contains(index) {
                node = array[index]
            } else { return nil }
        }
        return node
    }
}
