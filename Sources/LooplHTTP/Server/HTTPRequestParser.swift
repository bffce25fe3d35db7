/// Reads HTTP/1.1 requests from a byte stream, incrementally: feed bytes as they arrive, then
/// call `next()` until it says `.needMore`. Any split of the same bytes gives the same events.
/// Pure (no I/O), so it can be fuzzed. Heads come from ``HTTPHeadParser``; it keeps every byte fed
/// until consumed: its owner bounds it by feeding only while `next()` says `.needMore` (a head
/// stops at `maxHeaderBytes`, a body at `maxBodyBytes`).
package struct HTTPRequestParser: Sendable {
    /// A request whose head is in and whose body is still arriving.
    private struct Pending: Sendable {
        var request: HTTPRequest
        /// The body's length (Content-Length; 0 without one).
        var length: Int
    }

    /// The limits heads and bodies are checked against.
    package var limits: HTTPLimits { heads.limits }
    private var heads: HTTPHeadParser
    private var pending: Pending?
    private var failed: HTTPParseError?

    /// A parser for a new connection.
    package init(limits: HTTPLimits = .init()) {
        heads = HTTPHeadParser(.request, limits: limits)
    }

    /// Adds bytes read from the connection.
    package mutating func feed(_ bytes: some Sequence<UInt8>) {
        heads.feed(bytes)
    }

    /// Whether no byte of a next request has arrived (so waiting counts as idling).
    package var isIdle: Bool { pending == nil && heads.bufferedCount == 0 && failed == nil }

    /// Whether the head is in and the body is arriving.
    package var isReadingBody: Bool { pending != nil }

    /// The bytes buffered and not yet part of a request returned.
    package var bufferedCount: Int { heads.bufferedCount }

    /// The next event for the bytes fed so far; after a `.failure`, the same failure again.
    package mutating func next() -> HTTPParseEvent {
        if let failed { return .failure(failed) }
        if pending == nil {
            switch heads.next() {
            case .failure(let error):
                return fail(error)
            case .success(nil):
                return .needMore
            case .success(let head?):
                switch begin(head) {
                case .failure(let error):
                    return fail(error)
                case .success(let started):
                    pending = started.pending
                    if started.expectsContinue { return .expectsContinue }
                }
            }
        }
        guard let waiting = pending, heads.bufferedCount >= waiting.length else { return .needMore }
        var request = waiting.request
        request.body = heads.take(waiting.length)
        pending = nil
        return .request(request)
    }

    /// Keeps `error` as the answer to every later call.
    private mutating func fail(_ error: HTTPParseError) -> HTTPParseEvent {
        failed = error
        return .failure(error)
    }

    /// The request of `head` waiting for its body, and whether the client waits for `100 Continue`.
    private func begin(_ head: HTTPHead) -> Result<(pending: Pending, expectsContinue: Bool), HTTPParseError> {
        guard case .request(let method, let target, let version) = head.line else {
            return .failure(HTTPHeadLines.bad("The request line is not 'METHOD /path HTTP/1.1'."))
        }
        let request = HTTPRequest(method: method, target: target, version: version, headers: head.headers)
        return Self.body(head.headers, version: version, limits: limits).map { length, expects in
            (Pending(request: request, length: length), expects)
        }
    }

    /// The body's length and whether the client expects `100 Continue`.
    static func body(_ headers: HTTPHeaders, version: HTTPVersion, limits: HTTPLimits) -> Result<(Int, Bool), HTTPParseError> {
        if headers.contains("Transfer-Encoding") {
            return .failure(HTTPParseError(status: 411, "Request bodies sent with Transfer-Encoding are not supported; send the body with a Content-Length."))
        }
        var length = 0
        let values = headers.values("Content-Length").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        for (index, raw) in values.enumerated() {
            let value = raw.trimmingSpaces
            guard !value.isEmpty, value.utf8.allSatisfy(HTTPHeadLines.isDigit) else {
                return .failure(HTTPHeadLines.bad("The Content-Length \(HTTPHeadLines.quoted(value.utf8)) is not a number of bytes."))
            }
            let digits = value.drop { $0 == "0" }
            guard digits.count <= 18, let number = Int(digits.isEmpty ? "0" : digits) else {
                return .failure(tooLarge(declared: String(value), limits: limits))
            }
            if index > 0, number != length {
                return .failure(HTTPHeadLines.bad("The request has two different Content-Length values, \(length) and \(number)."))
            }
            length = number
        }
        if length > limits.maxBodyBytes { return .failure(tooLarge(declared: String(length), limits: limits)) }
        let expects = version == .http1_1 && length > 0
            && headers.values("Expect").contains { Substring($0).trimmingSpaces.lowercased() == "100-continue" }
        return .success((length, expects))
    }

    /// The 413 for a body of `declared` bytes.
    static func tooLarge(declared: String, limits: HTTPLimits) -> HTTPParseError {
        HTTPParseError(status: 413, "The request body is \(declared) bytes; the limit is \(limits.maxBodyBytes) bytes.")
    }
}
