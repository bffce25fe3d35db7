/// Reads HTTP/1.1 requests from a byte stream, incrementally: feed bytes as they arrive, then
/// call `next()` until it says `.needMore`. Any split of the same bytes gives the same events.
/// Pure (no I/O), so it can be fuzzed. It keeps every byte fed until consumed: its owner bounds
/// it by feeding only while `next()` says `.needMore` (a head stops at `maxHeaderBytes`, a body
/// at `maxBodyBytes`).
package struct HTTPRequestParser: Sendable {
    /// The limits heads and bodies are checked against.
    package let limits: HTTPLimits
    private var buffer: [UInt8] = []
    /// How much of `buffer` was searched for the end of the head.
    private var scanned = 0
    /// A parsed head whose body is still arriving.
    private var head: HTTPHead?
    private var failed: HTTPParseError?

    /// A parser for a new connection.
    package init(limits: HTTPLimits = .init()) {
        self.limits = limits
    }

    /// Adds bytes read from the connection.
    package mutating func feed(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Whether no byte of a next request has arrived (so waiting counts as idling).
    package var isIdle: Bool { head == nil && buffer.isEmpty && failed == nil }

    /// Whether the head is in and the body is arriving.
    package var isReadingBody: Bool { head != nil }

    /// The bytes buffered and not yet part of a request returned.
    package var bufferedCount: Int { buffer.count }

    /// The next event for the bytes fed so far; after a `.failure`, the same failure again.
    package mutating func next() -> HTTPParseEvent {
        if let failed { return .failure(failed) }
        if head == nil {
            switch readHead() {
            case .failure(let error):
                failed = error
                return .failure(error)
            case .success(nil):
                return .needMore
            case .success(let parsed?):
                head = parsed
                if parsed.expectsContinue { return .expectsContinue }
            }
        }
        guard let pending = head, buffer.count >= pending.length else { return .needMore }
        var request = pending.request
        request.body = Array(buffer[..<pending.length])
        buffer.removeFirst(pending.length)
        head = nil
        return .request(request)
    }

    /// The next head when it is all in, nil while it is not; skips empty lines before it.
    private mutating func readHead() -> Result<HTTPHead?, HTTPParseError> {
        skipEmptyLines()
        guard let end = headEnd() else {
            scanned = buffer.count
            if buffer.count > limits.maxHeaderBytes { return .failure(Self.headTooLarge(limits)) }
            return .success(nil)
        }
        if end > limits.maxHeaderBytes { return .failure(Self.headTooLarge(limits)) }
        let bytes = buffer[..<end]
        buffer.removeFirst(end)
        scanned = 0
        return HTTPHead.parse(bytes, limits: limits).map { $0 }
    }

    /// Drops the empty lines a client may send between requests.
    private mutating func skipEmptyLines() {
        var start = 0
        while start < buffer.count {
            if buffer[start] == 0x0A {
                start += 1
            } else if buffer[start] == 0x0D, start + 1 < buffer.count, buffer[start + 1] == 0x0A {
                start += 2
            } else {
                break
            }
        }
        if start > 0 {
            buffer.removeFirst(start)
            scanned = max(0, scanned - start)
        }
    }

    /// The index just past the empty line that ends the head, nil when it has not arrived.
    private func headEnd() -> Int? {
        var index = max(0, scanned - 2)
        while index < buffer.count {
            if buffer[index] == 0x0A {
                if index + 1 < buffer.count, buffer[index + 1] == 0x0A { return index + 2 }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// The 431 for a head over `maxHeaderBytes`.
    static func headTooLarge(_ limits: HTTPLimits) -> HTTPParseError {
        HTTPParseError(status: 431, "The request line and headers are over \(limits.maxHeaderBytes) bytes, the limit; send fewer or shorter headers.")
    }
}
