/// Reads message heads from a byte stream, incrementally, in either direction: request lines on a
/// server's connection, status lines on a client's. Feed bytes as they arrive, then call `next()`;
/// any split of the same bytes gives the same heads. The bytes after a head stay buffered for its
/// body (``take(_:)``). Pure (no I/O), so it can be fuzzed.
///
/// Lines end in CRLF or in a bare LF, as llama-server (cpp-httplib), nginx and Node read them
/// (RFC 9112 §2.2 lets a recipient take a bare LF); a bare CR is an error. Empty lines before a
/// head are skipped. A head over `maxHeaderBytes` is a 431 before its end arrives.
package struct HTTPHeadParser: Sendable {
    /// Which first line a head starts with.
    package enum Kind: Sendable { case request, response }

    /// Request heads or response heads.
    package let kind: Kind
    /// The limits a head is checked against.
    package let limits: HTTPLimits
    private var buffer: [UInt8] = []
    /// How much of `buffer` was searched for the end of the head.
    private var scanned = 0

    /// A parser for the heads of one connection.
    package init(_ kind: Kind, limits: HTTPLimits = .init()) {
        self.kind = kind
        self.limits = limits
    }

    /// Adds bytes read from the connection.
    package mutating func feed(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The bytes buffered and not yet taken.
    package var bufferedCount: Int { buffer.count }

    /// The next head when it is all in, nil while it is not.
    package mutating func next() -> Result<HTTPHead?, HTTPParseError> {
        skipEmptyLines()
        guard let end = headEnd() else {
            scanned = buffer.count
            if buffer.count > limits.maxHeaderBytes { return .failure(headTooLarge) }
            return .success(nil)
        }
        if end > limits.maxHeaderBytes { return .failure(headTooLarge) }
        let bytes = buffer[..<end]
        defer {
            buffer.removeFirst(end)
            scanned = 0
        }
        return HTTPHeadLines.parse(bytes, kind: kind, limits: limits).map { $0 }
    }

    /// Takes up to `count` of the bytes after the head (all of them when nil).
    package mutating func take(_ count: Int? = nil) -> [UInt8] {
        let taken = Array(buffer.prefix(count ?? buffer.count))
        buffer.removeFirst(taken.count)
        scanned = 0
        return taken
    }

    /// Drops the empty lines a peer may send between messages.
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
    private var headTooLarge: HTTPParseError {
        let what = kind == .request ? "request" : "response's status"
        return HTTPParseError(status: 431, "The \(what) line and headers are over \(limits.maxHeaderBytes) bytes, the limit; send fewer or shorter headers.")
    }
}
