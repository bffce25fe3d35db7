import Loopl

/// A value of a request body with its path (`messages[2].content`), whose readers throw a 400
/// that names the path when the value has the wrong type or range.
package struct RequestField: Sendable {
    /// The value.
    package let value: JSONValue
    /// Where the value sits in the body, e.g. `tools[0].function.name`; empty for the body itself.
    package let path: String

    /// The field at `path` holding `value`.
    package init(_ value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    /// A request body's bytes parsed: a 400 `invalid_json` when they are not UTF-8 JSON.
    package static func parse(body: [UInt8]) throws(APIError) -> RequestField {
        guard String(validating: body, as: UTF8.self) != nil else {
            throw .invalidJSON("The request body is not valid UTF-8 text; send JSON encoded as UTF-8.")
        }
        do {
            return RequestField(try JSONValue(parsing: body), path: "")
        } catch let error as LooplError {
            throw .invalidJSON("The request body is not valid JSON: \(error.message)")
        } catch {
            throw .invalidJSON("The request body is not valid JSON.")
        }
    }

    /// A parsed body as the root field; a 400 unless it is a JSON object.
    package static func body(_ json: JSONValue) throws(APIError) -> RequestField {
        guard json.objectValue != nil else {
            throw .invalidRequest("The request body must be a JSON object, not \(RequestField(json, path: "").kind).", param: nil)
        }
        return RequestField(json, path: "")
    }

    /// The member `key` of this object; nil when it is absent or null (OpenAI's "not given").
    package func member(_ key: String) -> RequestField? {
        guard let value = value[key], !value.isNull else { return nil }
        return RequestField(value, path: childPath(key))
    }

    /// The path of the member `key`.
    private func childPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The member `key`, which must be present.
    package func required(_ key: String) throws(APIError) -> RequestField {
        guard let field = member(key) else {
            throw .invalidRequest("`\(childPath(key))` is required.", param: childPath(key))
        }
        return field
    }

    /// A 400 naming this field: "`path` <problem>".
    package func error(_ problem: String) -> APIError {
        .invalidRequest("`\(path)` \(problem)", param: path)
    }

    /// The string.
    package func string() throws(APIError) -> String {
        guard let string = value.stringValue else { throw wrongType("a string") }
        return string
    }

    /// The boolean.
    package func bool() throws(APIError) -> Bool {
        guard let bool = value.boolValue else { throw wrongType("true or false") }
        return bool
    }

    /// The integer (a double with no fraction counts, as JSON does not tell them apart).
    package func integer() throws(APIError) -> Int {
        if let int = value.intValue { return int }
        if case .double(let double) = value, double.rounded() == double, let int = Int(exactly: double) { return int }
        throw wrongType("an integer")
    }

    /// The integer, which must be at least `minimum`.
    package func integer(atLeast minimum: Int) throws(APIError) -> Int {
        let int = try integer()
        guard int >= minimum else { throw error("must be at least \(minimum); got \(int).") }
        return int
    }

    /// The number, which must lie in `range`.
    package func number(in range: ClosedRange<Double>) throws(APIError) -> Double {
        guard let number = value.doubleValue else { throw wrongType("a number") }
        guard range.contains(number) else {
            throw error("must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)); got \(value.jsonText()).")
        }
        return number
    }

    /// The elements, each with its path (`path[i]`).
    package func array() throws(APIError) -> [RequestField] {
        guard let array = value.arrayValue else { throw wrongType("an array") }
        return array.enumerated().map { RequestField($1, path: "\(path)[\($0)]") }
    }

    /// Checks that the value is an object and returns the field itself.
    package func object() throws(APIError) -> RequestField {
        guard value.objectValue != nil else { throw wrongType("an object") }
        return self
    }

    /// The JSON kind of the value, for messages: "a string", "an array", ...
    package var kind: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private func wrongType(_ expected: String) -> APIError {
        error("must be \(expected), not \(kind).")
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number ? String(Int(number)) : String(number)
    }
}
