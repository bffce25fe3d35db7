import Foundation
import Loopl
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 that answers each request with canned bytes and closes.
final class FakeServer: Sendable {
    /// A received request: method and path, and its body.
    struct Request: Sendable {
        let line: String
        let headers: String
        let body: String
    }

    let port: Int
    private let fd: Int32
    private let received = Log()

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var requests: [Request] { received.list.withLock { $0 } }

    /// `respond` gets the request and returns the raw response (status line, headers, body).
    init(respond: @escaping @Sendable (Request) -> String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(fd, raw, length) == 0, listen(fd, 16) == 0, getsockname(fd, raw, &length) == 0 else {
                    throw POSIXError(.EADDRINUSE)
                }
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let listener = fd
        let received = self.received
        let thread = Thread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    // Closed here, not in stop(): a descriptor closed while this thread still
                    // accepts on it can be reused by the next server, whose clients this thread
                    // would then answer.
                    close(listener)
                    break
                }
                let request = Self.read(client)
                received.list.withLock { $0.append(request) }
                let bytes = Array(respond(request).utf8)
                _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                shutdown(client, Int32(SHUT_RDWR))
                close(client)
            }
        }
        thread.start()
    }

    /// Stops accepting; the accepting thread closes the socket.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private static func read(_ client: Int32) -> Request {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += buffer[..<count]
            if headerEnd == nil, let range = findHeaderEnd(data) {
                headerEnd = range
                let head = String(decoding: data[..<range], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    contentLength = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let headerEnd, data.count >= headerEnd + 4 + contentLength { break }
        }
        let end = headerEnd ?? data.count
        let head = String(decoding: data[..<end], as: UTF8.self)
        let body = String(decoding: data[min(end + 4, data.count)...], as: UTF8.self)
        let line = head.split(separator: "\r\n").first.map(String.init) ?? ""
        return Request(line: line, headers: head, body: body)
    }

    private static func findHeaderEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for index in 0...(data.count - 4) where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
            return index
        }
        return nil
    }

    private final class Log: Sendable {
        let list = Mutex<[Request]>([])
    }

    // MARK: - Canned answers

    static func json(_ status: Int, _ body: String) -> String {
        "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    /// An SSE stream of these data payloads; a payload that starts with ":" is sent as a comment line.
    static func events(_ events: [String]) -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + events.map { $0.hasPrefix(":") ? "\($0)\n\n" : "data: \($0)\n\n" }.joined()
    }

    /// An OpenAI chat chunk with a content delta.
    static func content(_ text: String) -> String {
        #"{"choices":[{"index":0,"delta":{"content":"\#(text)"},"finish_reason":null}]}"#
    }

    /// llama-server's `/tokenize` answer to `request` as a tokenizer without special tokens: token 0
    /// for each string of `content`, its numbers passed on.
    static func tokenize(_ request: Request) -> String {
        let content = (try? JSONValue(parsing: request.body))?["content"]?.arrayValue ?? []
        let tokens = content.map { $0.intValue.map(JSONValue.integer) ?? 0 }
        return json(200, JSONValue.object(["tokens": .array(tokens)]).jsonText())
    }

    /// Props of a llama-server with a context of `context` tokens.
    static func props(context: Int = 512) -> String {
        json(200, #"{"default_generation_settings":{"n_ctx":\#(context)},"total_slots":1}"#)
    }
}
