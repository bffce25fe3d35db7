import Foundation
import Glibc
import LooplHTTP
import Synchronization

/// What went wrong in the test client.
struct TestClientError: Error, CustomStringConvertible {
    let description: String
}

/// A response as the test client read it.
struct TestResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    /// The chunks of a chunked body, in order (nil for a Content-Length body).
    var chunks: [[UInt8]]?

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A tiny blocking HTTP client over a raw socket to 127.0.0.1, with a receive timeout so that a
/// test fails instead of hanging. A test uses it from one task at a time (hence unchecked Sendable).
final class TestClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: Duration = .seconds(5)) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            // deinit closes the socket: a class whose properties are all set runs it even when init throws.
            let text = String(cString: strerror(errno))
            throw TestClientError(description: "connect: \(text)")
        }
        let (seconds, atto) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(atto / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// Sends all of `bytes`; false when the server closed.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Reads more bytes into the buffer; false at end of stream, on a reset or after the timeout.
    private func fill() -> Bool {
        var bytes = [UInt8](repeating: 0, count: 65536)
        let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65536, 0) }
        if got <= 0 { return false }
        buffer += bytes[..<got]
        return true
    }

    /// One line, without its CRLF.
    func lineNow() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<newline]
                buffer.removeFirst(newline + 1)
                return String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
            }
            guard fill() else { throw TestClientError(description: "the connection ended inside a line") }
        }
    }

    /// Exactly `count` bytes.
    func bytesNow(count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard fill() else { throw TestClientError(description: "the connection ended \(count - buffer.count) bytes short") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    /// A status line and headers.
    func headNow() throws -> (status: Int, headers: HTTPHeaders) {
        let line = try lineNow()
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw TestClientError(description: "not a status line: \(line.debugDescription)")
        }
        var headers = HTTPHeaders()
        while true {
            let field = try lineNow()
            if field.isEmpty { break }
            guard let colon = field.firstIndex(of: ":") else { throw TestClientError(description: "bad header \(field)") }
            headers.append(name: String(field[..<colon]),
                           value: field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers)
    }

    /// One chunk of a chunked body; [] for the last one (its trailing CRLF read too).
    func chunkNow() throws -> [UInt8] {
        let size = try lineNow()
        guard let count = Int(size, radix: 16) else { throw TestClientError(description: "bad chunk size \(size.debugDescription)") }
        let bytes = try bytesNow(count: count)
        guard try lineNow().isEmpty else { throw TestClientError(description: "no CRLF after a chunk") }
        return bytes
    }

    /// A whole response: a Content-Length body, or every chunk of a chunked one.
    func responseNow() throws -> TestResponse {
        let (status, headers) = try headNow()
        if headers["Transfer-Encoding"] == "chunked" {
            var chunks: [[UInt8]] = []
            while true {
                let chunk = try chunkNow()
                if chunk.isEmpty { break }
                chunks.append(chunk)
            }
            return TestResponse(status: status, headers: headers, body: chunks.flatMap { $0 }, chunks: chunks)
        }
        let length = Int(headers["Content-Length"] ?? "0") ?? 0
        return TestResponse(status: status, headers: headers, body: try bytesNow(count: length))
    }

    /// Whether the server closed the connection (end of stream or reset) with nothing more sent, within the timeout.
    func closedNow() -> Bool {
        var byte: UInt8 = 0
        let got = recv(fd, &byte, 1, 0)
        return got == 0 || (got < 0 && errno == ECONNRESET)
    }

    /// Sends a request and reads its response.
    func exchange(_ request: String) async throws -> TestResponse {
        write(request)
        return try await readResponse()
    }

    // The reads wait on a thread of their own, so that a test blocked on the socket never holds
    // a thread of the cooperative pool that the server's handlers run on.

    func readLine() async throws -> String { try await offPool { try self.lineNow() } }
    func readHead() async throws -> (status: Int, headers: HTTPHeaders) { try await offPool { try self.headNow() } }
    func readChunk() async throws -> [UInt8] { try await offPool { try self.chunkNow() } }
    func readResponse() async throws -> TestResponse { try await offPool { try self.responseNow() } }
    func isClosed() async -> Bool { (try? await offPool { self.closedNow() }) ?? false }
}

/// Runs blocking `body` on a new thread and returns its result.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Things a handler saw, for a test to wait on.
final class Recorder: Sendable {
    private let events = Mutex<[String]>([])

    func record(_ event: String) { events.withLock { $0.append(event) } }

    var all: [String] { events.withLock { $0 } }

    /// Waits up to `timeout` for `event`; true when it came.
    func wait(for event: String, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if all.contains(event) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return all.contains(event)
    }
}

/// The process's threads and open descriptors, to check that nothing leaks.
enum ProcessCounts {
    static var threads: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1 }
    static var fds: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
}

/// Holds handlers until released; records "held" and "held N" as the N-th one arrives.
final class Gate: Sendable {
    let recorder = Recorder()
    private let state = Mutex((open: false, held: 0))

    func hold() async {
        let count = state.withLock { state in
            state.held += 1
            return state.held
        }
        recorder.record("held")
        recorder.record("held \(count)")
        while !state.withLock({ $0.open }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    func release() { state.withLock { $0.open = true } }
}
