import Foundation
import Loopl
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Plain HTTP/1.1 over a TCP socket, one connection per request, read on a thread of its own.
///
/// The request's `timeoutInterval` bounds the connect and every wait for bytes. Cancelling shuts
/// the socket down, which wakes the reader at once.
package enum SocketTransport {
    package static func open(_ request: URLRequest) -> HTTPResponseStream {
        let (stream, continuation) = AsyncThrowingStream<HTTPPart, any Error>.makeStream()
        let connection = Connection()
        let credit = ChunkCredit()
        continuation.onTermination = { _ in
            credit.abandon()
            connection.cancel()
        }
        Thread.start(named: "loopl http") {
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
    private static func exchange(_ request: URLRequest, over connection: Connection,
                                 yield: (HTTPPart) -> Void) throws(HTTPTransportError) {
        guard let url = request.url, var host = url.host, !host.isEmpty else { throw .cannotConnect("the URL has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? 80
        let timeout = max(1, Int32(clamping: Int(request.timeoutInterval * 1000)))
        try connection.connect(host: host, port: port, timeoutMs: timeout)
        try connection.send(head(of: request, url: url) + Array(request.httpBody ?? Data()))

        var buffer = [UInt8](repeating: 0, count: 65536)
        var received: [UInt8] = []
        var status = 0
        var headers: [String: String] = [:]
        // The head, skipping interim 1xx answers.
        repeat {
            var end = headEnd(in: received)
            while end == nil {
                let count = try connection.read(into: &buffer, timeoutMs: timeout)
                guard count > 0 else { throw .connectionLost }
                received += buffer[0..<count]
                end = headEnd(in: received)
                if end == nil, received.count > 65536 { throw .malformed("a response head longer than 64 KiB") }
            }
            guard let end else { throw .connectionLost }
            (status, headers) = try parseHead(received[0..<end])
            received.removeFirst(end)
        } while (100..<200).contains(status)
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
        try deliver(received[...])
        while !complete() {
            let count = try connection.read(into: &buffer, timeoutMs: timeout)
            if count == 0 {
                // Without a length or chunks, the body is whatever came before the close.
                guard chunked == nil, remaining == nil else { throw .connectionLost }
                return
            }
            try deliver(buffer[0..<count])
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

    /// The index just past the blank line that ends the head, if it has arrived.
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D
            && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPTransportError) -> (Int, [String: String]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n")
        let statusLine = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]), (100...599).contains(status) else {
            throw .malformed("the answer does not start with an HTTP/1.x status line")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }
}

extension SocketTransport {
    /// A socket that another thread may shut down at any time.
    package final class Connection: Sendable {
        private struct State {
            var fd: Int32 = -1
            var cancelled = false
        }
        private let state = Mutex(State())

        package init() {}

        package var isCancelled: Bool { state.withLock { $0.cancelled } }

        /// Wakes the reader and makes the exchange end as cancelled.
        package func cancel() {
            state.withLock {
                $0.cancelled = true
                if $0.fd >= 0 { _ = shutdown($0.fd, Int32(SHUT_RDWR)) }
            }
        }

        /// Releases the socket; only the exchange's own thread calls this.
        package func close() {
            state.withLock {
                if $0.fd >= 0 { _ = Glibc.close($0.fd) }
                $0.fd = -1
            }
        }

        private var fd: Int32 { state.withLock { $0.fd } }

        package func connect(host: String, port: Int, timeoutMs: Int32) throws(HTTPTransportError) {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let resolved = getaddrinfo(host, String(port), &hints, &list)
            guard resolved == 0, let list else {
                throw .cannotConnect("cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
            }
            defer { freeaddrinfo(list) }
            var reason = "no address"
            var next: UnsafeMutablePointer<addrinfo>? = list
            while let address = next {
                next = address.pointee.ai_next
                let fd = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                guard fd >= 0 else { reason = String(cString: strerror(errno)); continue }
                let adopted = state.withLock { state -> Bool in
                    guard !state.cancelled else { return false }
                    state.fd = fd
                    return true
                }
                guard adopted else { _ = Glibc.close(fd); throw .cancelled }
                if let failure = attempt(fd, address.pointee.ai_addr, address.pointee.ai_addrlen, timeoutMs: timeoutMs) {
                    reason = failure
                    close()
                    if isCancelled { throw .cancelled }
                    continue
                }
                var yes: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                return
            }
            throw .cannotConnect(reason)
        }

        /// Connects without blocking longer than the timeout; returns the reason on failure.
        private func attempt(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, timeoutMs: Int32) -> String? {
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            if Glibc.connect(fd, address, length) != 0 {
                guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&poller, 1, timeoutMs)
                guard ready > 0 else { return ready == 0 ? "timed out" : String(cString: strerror(errno)) }
                var error: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
                guard error == 0 else { return String(cString: strerror(error)) }
            }
            _ = fcntl(fd, F_SETFL, flags)
            return nil
        }

        package func send(_ bytes: [UInt8]) throws(HTTPTransportError) {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 {
                    if errno == EINTR { continue }
                    throw isCancelled ? .cancelled : .connectionLost
                }
                offset += sent
            }
        }

        /// Reads what has arrived, waiting at most the timeout; 0 means the server closed the connection.
        package func read(into buffer: inout [UInt8], timeoutMs: Int32) throws(HTTPTransportError) -> Int {
            let fd = self.fd
            while true {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, timeoutMs)
                if ready < 0, errno == EINTR { continue }
                if isCancelled { throw .cancelled }
                guard ready > 0 else { throw ready == 0 ? .timedOut : .connectionLost }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw isCancelled ? .cancelled : .connectionLost
                }
                return count
            }
        }
    }
}
