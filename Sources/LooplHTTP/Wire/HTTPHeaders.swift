/// A request's or response's header fields: ordered (name, value) pairs, names compared without case.
package struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    /// One field as it arrived.
    package typealias Element = (name: String, value: String)

    private var fields: [Element]

    /// Headers with these fields, in this order.
    package init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Headers from a literal, in its order.
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field `name` (any case), nil when there is none.
    package subscript(name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }

    /// Every value of the field `name` (any case), in order.
    package func values(_ name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether the field `name` is there, with any value.
    package func contains(_ name: String) -> Bool { self[name] != nil }

    /// Adds a field at the end.
    package mutating func append(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// The number of fields.
    package var count: Int { fields.count }

    /// The fields in order.
    package func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    /// Whether both hold the same fields in the same order, names compared exactly.
    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Whether two field names are the same (ASCII case-insensitive).
    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }

    /// An ASCII byte in lower case.
    static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
}
