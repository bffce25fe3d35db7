import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP/1.1 over a TCP socket, one connection per request, read on a thread of its own.
///
/// The request's `timeoutInterval` bounds the connect and every wait for bytes. Cancelling shuts
/// the socket down, which wakes the reader at once.
package enum SocketTransport {
    package static func open(_ request: URLRequest) -> HTTPResponseStream {
        let (stream, continuation) = AsyncThrowingStream<HTTPPart, any Error>.makeStream()
        let connection = SocketConnection()
        let credit = ChunkCredit()
        continuation.onTermination = { _ in
            credit.abandon()
            connection.cancel()
        }
        Thread.start(named: "http client") {
            do {
                try exchange(request, over: connection) { part in
                    if credit.acquire() { continuation.yield(part) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: connection.isCancelled ? HTTPTransportError.cancelled : error)
            }
            connection.close()
        }
        return HTTPResponseStream(parts: stream, cancel: { connection.cancel() }, credit: credit)
    }

    /// Sends `request` and hands on the answer's parts to `yield`, which waits while the consumer is behind.
    private static func exchange(_ request: URLRequest, over connection: SocketConnection,
                                 yield: (HTTPPart) -> Void) throws(HTTPTransportError) {
        guard let url = request.url, var host = url.host, !host.isEmpty else { throw .cannotConnect("the URL has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? 80
        let timeout = Duration.milliseconds(max(1, Int(min(request.timeoutInterval, 1e9) * 1000)))
        try connection.connect(host: host, port: port, timeout: timeout)
        try connection.send(head(of: request, url: url) + Array(request.httpBody ?? Data()), timeout: timeout)

        var reader = HTTPHeadParser(.response)
        var (status, headers) = try readHead(&reader, over: connection, timeout: timeout)
        // Interim 1xx answers are skipped.
        while (100..<200).contains(status) { (status, headers) = try readHead(&reader, over: connection, timeout: timeout) }
        yield(.status(status, headers: headers))

        var chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") == true ? ChunkedDecoder() : nil
        var remaining = chunked == nil ? headers["content-length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } : nil
        func deliver(_ bytes: ArraySlice<UInt8>) throws(HTTPTransportError) {
            if chunked != nil {
                let payload = try chunked?.feed(bytes) ?? []
                if !payload.isEmpty { yield(.body(payload)) }
            } else if let left = remaining {
                let taken = bytes.prefix(left)
                remaining = left - taken.count
                if !taken.isEmpty { yield(.body(Array(taken))) }
            } else if !bytes.isEmpty {
                yield(.body(Array(bytes)))
            }
        }
        func complete() -> Bool { chunked?.isComplete ?? (remaining == 0) }
        try deliver(reader.take()[...])
        while !complete() {
            let bytes = try connection.read(timeout: timeout)
            if bytes.isEmpty {
                // Without a length or chunks, the body is whatever came before the close.
                guard chunked == nil, remaining == nil else { throw .connectionLost }
                return
            }
            try deliver(bytes[...])
        }
    }

    /// The request line and headers; the connection closes after the answer.
    private static func head(of request: URLRequest, url: URL) -> [UInt8] {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        let authority = (url.host ?? "") + (url.port.map { ":\($0)" } ?? "")
        var lines = ["\(request.httpMethod ?? "GET") \(target) HTTP/1.1", "Host: \(authority)"]
        for (name, value) in request.allHTTPHeaderFields ?? [:] where !["host", "content-length", "connection"].contains(name.lowercased()) {
            lines.append("\(name): \(value)")
        }
        if let body = request.httpBody { lines.append("Content-Length: \(body.count)") }
        lines.append("Connection: close")
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// The status and headers of the next head `reader` reads from `connection`.
    private static func readHead(_ reader: inout HTTPHeadParser, over connection: SocketConnection,
                                 timeout: Duration) throws(HTTPTransportError) -> (Int, HTTPHeaders) {
        while true {
            switch reader.next() {
            case .failure(let error):
                throw .malformed(error)
            case .success(let head?):
                guard case .status(_, let code, _) = head.line else { throw .malformed("the answer has no status line") }
                return (code, head.headers)
            case .success(nil):
                let bytes = try connection.read(timeout: timeout)
                guard !bytes.isEmpty else { throw .connectionLost }
                reader.feed(bytes)
            }
        }
    }
}
