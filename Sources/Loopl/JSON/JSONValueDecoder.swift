extension JSONValue {
    /// Reads this value through `type`'s Codable conformance, without Foundation. Numbers keep
    /// their kind: a whole-number field refuses `1.5` and `1.0`, a Bool refuses `0`. A failure
    /// names the field and what it must be, for example `GenerationOptions 'topK' must be a whole number.`
    public func decode<T: Decodable>(_ type: T.Type) throws(LooplError) -> T {
        do {
            return try JSONValueDecoder.decode(type, from: self, at: [])
        } catch let error as DecodingError {
            throw LooplError(.invalidJSON, JSONValueDecoder.sentence(error, reading: type))
        } catch let error as LooplError {
            throw error
        } catch {
            throw LooplError(.invalidJSON, "\(type) could not be read: \(error).")
        }
    }
}

/// A `Decoder` that reads a ``JSONValue``.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
        if let json = value as? T { return json }
        if let primitive = try primitive(type, from: value, at: path) { return primitive }
        do {
            return try T(from: JSONValueDecoder(value: value, codingPath: path))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.count == path.count {
            // A closed vocabulary (a String enum) lists what it accepts.
            guard let vocabulary = T.self as? any CaseIterable.Type else { throw DecodingError.dataCorrupted(context) }
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription:
                "is \(value.jsonText()), not one of \(names(vocabulary).joined(separator: ", "))"))
        }
    }

    private static func names<C: CaseIterable>(_ type: C.Type) -> [String] {
        C.allCases.map { ($0 as? any RawRepresentable).map { "\($0.rawValue)" } ?? "\($0)" }
    }

    /// A Bool, a string or a number of the kind `type` asks for; nil when `type` is none of these.
    static func primitive<T>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T? {
        func mismatch(_ what: String) -> DecodingError {
            .typeMismatch(type, .init(codingPath: path, debugDescription: "must be \(what)"))
        }
        switch type {
        case is Bool.Type:
            guard let bool = value.boolValue else { throw mismatch("true or false") }
            return bool as? T
        case is String.Type:
            guard let string = value.stringValue else { throw mismatch("a string") }
            return string as? T
        case is Double.Type:
            guard let number = value.doubleValue else { throw mismatch("a number") }
            return number as? T
        case is Float.Type:
            guard let number = value.doubleValue else { throw mismatch("a number") }
            return Float(number) as? T
        case let integer as any FixedWidthInteger.Type:
            return try whole(integer, from: value, at: path) as? T
        default:
            return nil
        }
    }

    private static func whole<I: FixedWidthInteger>(_ type: I.Type, from value: JSONValue, at path: [any CodingKey]) throws -> I {
        guard let number = value.intValue else {
            throw DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "must be a whole number"))
        }
        guard let fitting = I(exactly: number) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "must be from \(I.min) to \(I.max)"))
        }
        return fitting
    }

    /// `Name 'path' must be ...`: the sentence of a LooplError for a decoding failure.
    static func sentence(_ error: DecodingError, reading type: Any.Type) -> String {
        let (path, problem): ([any CodingKey], String)
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            (path, problem) = (context.codingPath, context.debugDescription)
        case .keyNotFound(let key, let context):
            (path, problem) = (context.codingPath + [key], "is missing")
        @unknown default:
            (path, problem) = ([], "\(error)")
        }
        var field = path.map { key -> String in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        if field.hasPrefix(".") { field.removeFirst() }
        return field.isEmpty ? "\(type) \(problem)." : "\(type) '\(field)' \(problem)."
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let object = value.objectValue else {
            throw DecodingError.typeMismatch(JSONObject.self, .init(codingPath: codingPath, debugDescription: "must be an object"))
        }
        return KeyedDecodingContainer(Keyed(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = value.arrayValue else {
            throw DecodingError.typeMismatch([JSONValue].self, .init(codingPath: codingPath, debugDescription: "must be a list"))
        }
        return Unkeyed(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: JSONObject
        let codingPath: [any CodingKey]

        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func member(_ key: Key) throws -> JSONValue {
            guard let member = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is missing"))
            }
            return member
        }

        func decodeNil(forKey key: Key) throws -> Bool { try member(key).isNull }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONValueDecoder.decode(type, from: try member(key), at: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try JSONValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            JSONValueDecoder(value: object["super"] ?? .null, codingPath: codingPath + [JSONKey("super")])
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONValueDecoder(value: try member(key), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next() throws -> JSONValueDecoder {
            let path = codingPath + [JSONKey(index: currentIndex)]
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: path, debugDescription: "is missing: the list is too short"))
            }
            defer { currentIndex += 1 }
            return JSONValueDecoder(value: elements[currentIndex], codingPath: path)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex].isNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let element = try next()
            return try JSONValueDecoder.decode(type, from: element.value, at: element.codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }
}

extension JSONValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONValueDecoder.decode(type, from: value, at: codingPath) }
}
