/// One parsed HTTP request: its line, its headers and its whole body.
package struct HTTPRequest: Sendable, Equatable {
    /// The method.
    package var method: HTTPMethod
    /// The raw request-target, e.g. "/v1/models/x?y=1".
    package var target: String
    /// The target's path, without the query.
    package var path: String
    /// The query after "?", nil when there is none.
    package var query: String?
    /// The protocol version.
    package var version: HTTPVersion
    /// The header fields in order.
    package var headers: HTTPHeaders
    /// The body (Content-Length bytes; empty without one).
    package var body: [UInt8]

    /// A request; `path` and `query` come from `target`.
    package init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = .init(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        (path, query) = Self.split(target)
    }

    /// The path and query of a request-target; an absolute-form target ("http://host/p?q") gives its path.
    static func split(_ target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        for scheme in ["http://", "https://"] where rest.lowercased().hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            rest = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { rest[$0...] } ?? ""
            if !rest.hasPrefix("/") { rest = "/" + rest }
        }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), nil) }
        return (String(rest[..<mark]), String(rest[rest.index(after: mark)...]))
    }

    /// Whether the connection stays open after this request's answer: HTTP/1.1 unless it says
    /// `Connection: close`, HTTP/1.0 only when it says `Connection: keep-alive`.
    package var wantsKeepAlive: Bool {
        let tokens = headers.values("Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }
        if tokens.contains("close") { return false }
        return version == .http1_1 || tokens.contains("keep-alive")
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    package var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
