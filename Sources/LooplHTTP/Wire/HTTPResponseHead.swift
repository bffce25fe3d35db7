/// The status line and headers of a response, as bytes; the server owns the framing headers.
enum HTTPResponseHead {
    /// How the body is delimited.
    enum Framing {
        /// `Content-Length: n`.
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Until the connection closes (a stream to an HTTP/1.0 client).
        case close
    }

    /// Headers the server writes itself; a handler's own values for them are dropped.
    static let owned: Set<String> = ["content-length", "transfer-encoding", "connection"]

    /// The head of a response with `status`, the handler's `headers` and the server's framing.
    /// Carriage returns and line feeds in names or values become spaces, so a header cannot split.
    static func bytes(status: Int, headers: [(String, String)], framing: Framing, keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in headers where !owned.contains(name.lowercased()) {
            text += clean(name) + ": " + clean(value) + "\r\n"
        }
        if hasBody(status) {
            switch framing {
            case .length(let count): text += "Content-Length: \(count)\r\n"
            case .chunked: text += "Transfer-Encoding: chunked\r\n"
            case .close: break
            }
        }
        text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// Whether a response with `status` may have a body (not 1xx, 204, 304).
    static func hasBody(_ status: Int) -> Bool { status >= 200 && status != 204 && status != 304 }

    /// `text` with CR and LF replaced by spaces.
    static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueLine: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The reason phrase of `status`.
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: status < 300 ? "OK" : status < 500 ? "Client Error" : "Server Error"
        }
    }
}
