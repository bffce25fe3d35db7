/// Why an HTTP exchange failed below the level of HTTP statuses.
package enum HTTPTransportError: Error, Sendable, Equatable {
    /// No connection could be made: the reason from the system.
    case cannotConnect(String)
    /// Nothing arrived for longer than the request's timeout.
    case timedOut
    /// The server closed the connection before the response was complete.
    case connectionLost
    /// The server's bytes are not HTTP/1.1.
    case malformed(String)
    /// The caller closed the connection.
    case cancelled
    /// The server broke a bound or the framing of what it sends (a body or an event too large):
    /// a sentence that says what, and what to check.
    case violation(String)

    /// A `malformed` error for a head the parser rejected: its message as a phrase.
    static func malformed(_ error: HTTPParseError) -> HTTPTransportError {
        var phrase = error.message
        if phrase.hasSuffix(".") { phrase.removeLast() }
        return .malformed(phrase.prefix(1).lowercased() + phrase.dropFirst())
    }
}
