extension JSONValue {
    /// The JSON form of `value`'s Codable conformance, built without Foundation: integers stay
    /// integers, doubles stay doubles (`1.0`), keys keep the order the conformance writes them in,
    /// and optionals encoded with `encodeIfPresent` are left out when nil.
    public init(encoding value: some Encodable) throws(LooplError) {
        let slot = JSONValueEncoder.Slot()
        do {
            try JSONValueEncoder.encode(value, into: slot, at: [])
        } catch {
            throw LooplError(.invalidJSON, "\(type(of: value)) cannot be written as JSON: \(error).")
        }
        self = slot.value
    }
}

/// An `Encoder` whose output is a ``JSONValue``. Containers write into reference slots, so a
/// nested container filled after its parent returned still lands in the result.
struct JSONValueEncoder: Encoder {
    /// One value under construction: a finished value, an object's members, or an array's elements.
    final class Slot {
        var single: JSONValue = .null
        var members: [(String, Slot)]?
        var elements: [Slot]?

        var value: JSONValue {
            if let members { return .object(JSONObject(members.map { ($0.0, $0.1.value) })) }
            if let elements { return .array(elements.map(\.value)) }
            return single
        }
    }

    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func encode(_ value: some Encodable, into slot: Slot, at path: [any CodingKey]) throws {
        if let json = value as? JSONValue {
            slot.single = json
        } else if let primitive = try primitive(value, at: path) {
            slot.single = primitive
        } else {
            try value.encode(to: JSONValueEncoder(slot: slot, codingPath: path))
        }
    }

    /// The JSON value of a Bool, a string or a number; nil for anything else.
    static func primitive(_ value: some Encodable, at path: [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let bool as Bool: return .bool(bool)
        case let string as String: return .string(string)
        case let double as Double: return .double(double)
        case let float as Float: return .double(Double(float))
        case let integer as any BinaryInteger:
            guard let fitting = Int(exactly: integer) else {
                throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "\(integer) does not fit in an Int"))
            }
            return .integer(fitting)
        default: return nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot.members == nil { slot.members = [] }
        return KeyedEncodingContainer(Keyed(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot.elements == nil { slot.elements = [] }
        return Unkeyed(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(slot: slot, codingPath: codingPath) }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let slot: Slot
        let codingPath: [any CodingKey]

        private func child(_ key: Key) -> Slot {
            let child = Slot()
            slot.members?.append((key.stringValue, child))
            return child
        }

        mutating func encodeNil(forKey key: Key) throws { child(key).single = .null }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try JSONValueEncoder.encode(value, into: child(key), at: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            JSONValueEncoder(slot: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            JSONValueEncoder(slot: child(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let child = Slot()
            slot.members?.append(("super", child))
            return JSONValueEncoder(slot: child, codingPath: codingPath + [JSONKey("super")])
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            JSONValueEncoder(slot: child(key), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let slot: Slot
        let codingPath: [any CodingKey]
        var count: Int { slot.elements?.count ?? 0 }

        private func next() -> (Slot, [any CodingKey]) {
            let child = Slot()
            let path = codingPath + [JSONKey(index: count)]
            slot.elements?.append(child)
            return (child, path)
        }

        mutating func encodeNil() throws { next().0.single = .null }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let (child, path) = next()
            try JSONValueEncoder.encode(value, into: child, at: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let (child, path) = next()
            return JSONValueEncoder(slot: child, codingPath: path).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let (child, path) = next()
            return JSONValueEncoder(slot: child, codingPath: path).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let (child, path) = next()
            return JSONValueEncoder(slot: child, codingPath: path)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let slot: Slot
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { slot.single = .null }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try JSONValueEncoder.encode(value, into: slot, at: codingPath)
        }
    }
}
