/// Why a request could not be read: the status to answer and a sentence saying what was wrong.
package struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status of the answer (400, 411, 413, 431, 505, ...).
    package let status: Int
    /// What was wrong, in words the client's author can act on.
    package let message: String

    /// An error answered with `status`.
    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The status and the message.
    package var description: String { "\(status): \(message)" }
}

/// What the request parser has after the bytes fed so far.
package enum HTTPParseEvent: Sendable, Equatable {
    /// The next request is not complete yet.
    case needMore
    /// A head asked `Expect: 100-continue` for a body within the limit: answer `100 Continue`, then
    /// feed the body. Comes once per such request, before its `.request`.
    case expectsContinue
    /// A whole request; bytes after it stay buffered for the next one.
    case request(HTTPRequest)
    /// The input is not a request this server takes; answer `status` and close the connection.
    case failure(HTTPParseError)
}
