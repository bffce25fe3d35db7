/// A request method: the common ones by name, any other token as sent.
package enum HTTPMethod: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    case get, head, post, put, patch, delete, options
    /// A method without a case of its own, as sent ("TRACE", "PROPFIND", ...).
    case other(String)

    /// The method of the token `text` (case-sensitive, as RFC 9110 says).
    package init(_ text: String) {
        self = Self.named[text] ?? .other(text)
    }

    /// The method of a literal ("GET").
    package init(stringLiteral text: String) { self.init(text) }

    /// The method as it goes on the wire.
    package var rawValue: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .other(let text): text
        }
    }

    /// The method as it goes on the wire.
    package var description: String { rawValue }

    private static let named: [String: HTTPMethod] = Dictionary(
        uniqueKeysWithValues: [HTTPMethod.get, .head, .post, .put, .patch, .delete, .options].map { ($0.rawValue, $0) })
}
