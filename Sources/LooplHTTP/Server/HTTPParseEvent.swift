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
