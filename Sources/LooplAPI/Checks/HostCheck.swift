import LooplHTTP

/// The names the server answers to, checked against each request's `Host`: a web page whose name
/// was made to point at this machine (DNS rebinding) still sends its own name, and is refused.
///
/// The server answers to `localhost`, `127.0.0.1`, `[::1]` and the address it listens on, each with
/// its port; listening on every address (`0.0.0.0`, `::`), to the machine's interface addresses
/// too; and to each name in `serve.allowedHosts` with any port or none. `"*"` there answers to any.
struct HostCheck: RefusingStage {
    /// The names taken with the server's port.
    let local: Set<String>
    /// `serve.allowedHosts`: names taken with any port or none; `*` takes every name.
    let allowed: Set<String>

    /// The check of a server listening on `address` (an IP address or `localhost`) with `allowed`
    /// from the config; `interfaces` lists the machine's addresses.
    init(listening address: String, allowed: [String], interfaces: () -> [String] = InterfaceAddresses.all) {
        var local: Set<String> = ["localhost", "127.0.0.1", "[::1]", Self.name(address)]
        if InterfaceAddresses.isUnspecified(address) { local.formUnion(interfaces().map(Self.name)) }
        self.local = local
        self.allowed = Set(allowed.map { $0.lowercased() })
    }

    /// Whether `authority` (a `Host` value: a name and maybe a port) names a server on `port`;
    /// `wildcard: false` ignores a `*` in `serve.allowedHosts`.
    func accepts(_ authority: String, port: Int, wildcard: Bool = true) -> Bool {
        if wildcard, allowed.contains("*") { return true }
        guard let (name, given) = Self.split(authority) else { return false }
        if allowed.contains(name) { return true }
        return local.contains(name) && (given == port || (given == nil && port == 80))
    }

    func refusal(_ request: HTTPRequest, to route: RouteTraits, port: Int) -> APIError? {
        let hosts = request.headers.values("Host")
        guard hosts.count <= 1 else { return .invalidRequest("The request has \(hosts.count) Host headers; send one.", param: nil) }
        guard let host = hosts.first else {
            return request.version == .http1_0 ? nil : .invalidRequest("An HTTP/1.1 request needs a Host header.", param: nil)
        }
        // An absolute-form target ("http://name/path") names the host too.
        let names = [host] + (Self.targetAuthority(request.target).map { [$0] } ?? [])
        return names.first { !accepts($0, port: port) }.map(APIError.hostNotAllowed)
    }

    /// An address as it appears in a `Host`: lower case, IPv6 in brackets.
    static func name(_ address: String) -> String {
        let address = address.lowercased()
        return address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
    }

    /// A `Host` value's name (lower case) and port (nil when there is none); nil when it is malformed.
    static func split(_ authority: String) -> (name: String, port: Int?)? {
        let text = Substring(authority.lowercased()).trimmingSpaces
        let nameEnd: String.Index
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            nameEnd = text.index(after: close)
        } else {
            nameEnd = text.firstIndex(of: ":") ?? text.endIndex
        }
        let name = String(text[..<nameEnd])
        var rest = text[nameEnd...]
        guard !name.isEmpty, !name.contains(where: { "/?#@\\ ".contains($0) }) else { return nil }
        guard rest.popFirst() == ":" else { return rest.isEmpty ? (name, nil) : nil }
        if rest.isEmpty { return (name, nil) }
        guard rest.count <= 5, rest.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(rest), port <= 65535 else { return nil }
        return (name, port)
    }

    /// The authority of an absolute-form request target, nil for the usual "/path".
    static func targetAuthority(_ target: String) -> String? {
        let lower = target.lowercased()
        guard let scheme = ["http://", "https://"].first(where: lower.hasPrefix) else { return nil }
        let rest = target.dropFirst(scheme.count)
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}

extension APIError {
    /// 421: the request names a host the server does not answer to.
    static func hostNotAllowed(_ host: String) -> APIError {
        APIError(status: 421, type: "invalid_request_error", code: "host_not_allowed",
                 message: "This server does not answer to the host '\(host)'. If you reach it by that name (through a reverse proxy, or from a container), add the name to serve.allowedHosts in the config.")
    }
}
