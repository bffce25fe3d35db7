/// The head of an HTTP message, read and checked: its first line (a request line or a status
/// line) and its header fields.
package struct HTTPHead: Sendable, Equatable {
    /// The first line of a head.
    package enum Line: Sendable, Equatable {
        /// "METHOD target HTTP/1.1", the first line of a request.
        case request(method: HTTPMethod, target: String, version: HTTPVersion)
        /// "HTTP/1.1 200 OK", the first line of a response.
        case status(version: HTTPVersion, code: Int, reason: String)
    }

    /// The request or status line.
    package var line: Line
    /// The header fields in order.
    package var headers: HTTPHeaders

    /// The version of either line.
    package var version: HTTPVersion {
        switch line {
        case .request(_, _, let version), .status(let version, _, _): version
        }
    }
}
