/// The HTTP versions Loopl reads and writes.
package enum HTTPVersion: String, Sendable, Hashable, CustomStringConvertible {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"

    /// The version as it goes on the wire.
    package var description: String { rawValue }
}
