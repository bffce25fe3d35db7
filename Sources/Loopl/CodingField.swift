/// One stored property of a Codable value and its JSON key, so that a type writes each field once
/// (its declaration, with its default) plus one row of a table, and both coding directions come
/// from that table. Decoding starts from the type's defaults and overwrites the keys present;
/// encoding leaves out nil optionals and the values given as `omitting`.
package struct CodingField<Root>: Sendable {
    package let key: String
    let decode: @Sendable (KeyedDecodingContainer<FieldKey>, inout Root) throws -> Void
    let encode: @Sendable (Root, inout KeyedEncodingContainer<FieldKey>) throws -> Void

    /// A field always written.
    package init<Value: Codable & SendableMetatype>(_ key: String, _ path: any WritableKeyPath<Root, Value> & Sendable) {
        self.key = key
        decode = { container, root in
            if let value = try container.decodeIfPresent(Value.self, forKey: FieldKey(key)) { root[keyPath: path] = value }
        }
        encode = { root, container in try container.encode(root[keyPath: path], forKey: FieldKey(key)) }
    }

    /// A field left out when it equals `omitted`.
    package init<Value: Codable & Equatable & Sendable & SendableMetatype>(_ key: String, _ path: any WritableKeyPath<Root, Value> & Sendable,
                                                                       omitting omitted: Value) {
        self.key = key
        decode = { container, root in
            if let value = try container.decodeIfPresent(Value.self, forKey: FieldKey(key)) { root[keyPath: path] = value }
        }
        encode = { root, container in
            let value = root[keyPath: path]
            if value != omitted { try container.encode(value, forKey: FieldKey(key)) }
        }
    }

    /// An optional field, left out when nil; null or a missing key keeps the default.
    package init<Value: Codable & SendableMetatype>(_ key: String, _ path: any WritableKeyPath<Root, Value?> & Sendable) {
        self.key = key
        decode = { container, root in
            if let value = try container.decodeIfPresent(Value.self, forKey: FieldKey(key)) { root[keyPath: path] = value }
        }
        encode = { root, container in try container.encodeIfPresent(root[keyPath: path], forKey: FieldKey(key)) }
    }

    /// `defaults` with the keys that `decoder` holds written over it.
    package static func decode(_ fields: [CodingField], into defaults: Root, from decoder: any Decoder) throws -> Root {
        let container = try decoder.container(keyedBy: FieldKey.self)
        var root = defaults
        for field in fields { try field.decode(container, &root) }
        return root
    }

    /// Writes `root`'s fields in the table's order.
    package static func encode(_ fields: [CodingField], of root: Root, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for field in fields { try field.encode(root, &container) }
    }
}

/// The JSON key of a ``CodingField``.
package struct FieldKey: CodingKey {
    package let stringValue: String
    package var intValue: Int? { nil }
    package init(_ key: String) { stringValue = key }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}
