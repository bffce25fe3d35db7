import LooplHTTP

/// Refuses what a browser sends for a page of another site, before it does anything, key or no
/// key: a request with `Sec-Fetch-Site: cross-site` or `same-site`, or with an `Origin` that is
/// `null` or is neither the server's own (`http://` or `https://` and a name ``HostCheck`` takes)
/// nor listed in `serve.corsOrigins` (`*` lists every origin but `null`). A listed origin passes
/// whatever `Sec-Fetch-Site` says. Clients that send neither header (curl, SDKs, servers) pass.
struct BrowserCheck: RefusingStage {
    let hosts: HostCheck
    /// `serve.corsOrigins`.
    let origins: [String]

    func refusal(_ request: HTTPRequest, to route: RouteTraits, port: Int) -> APIError? {
        let sent = request.headers.values("Origin")
        guard sent.count <= 1 else { return .foreignOrigin(sent.joined(separator: ", ")) }
        let origin = sent.first
        if let origin, listed(origin) { return nil }
        let site = request.headers["Sec-Fetch-Site"]?.lowercased()
        if let site, site == "cross-site" || site == "same-site" { return .crossSite(site) }
        guard let origin, !own(origin, port: port) else { return nil }
        return .foreignOrigin(origin)
    }

    /// Whether `serve.corsOrigins` lets `origin` call the API.
    func listed(_ origin: String) -> Bool {
        origin != "null" && (origins.contains("*") || origins.contains(origin))
    }

    /// Whether `origin` is a page of this server: its own scheme and a name it answers to.
    func own(_ origin: String, port: Int) -> Bool {
        let lower = origin.lowercased()
        guard let scheme = ["http://", "https://"].first(where: lower.hasPrefix) else { return false }
        let authority = lower.dropFirst(scheme.count)
        return !authority.contains("/") && hosts.accepts(String(authority), port: port, wildcard: false)
    }
}

extension APIError {
    /// 403: a browser sent the request for a page of another site.
    static func crossSite(_ site: String) -> APIError {
        APIError(status: 403, type: "invalid_request_error", code: "cross_site_request",
                 message: "A browser sent this request for a page of another site (Sec-Fetch-Site: \(site)); web pages other than this server's own may not use it. To let a page of yours call it, list the page's origin in serve.corsOrigins.")
    }

    /// 403: the request's `Origin` is not this server's and is not listed.
    static func foreignOrigin(_ origin: String) -> APIError {
        APIError(status: 403, type: "invalid_request_error", code: "origin_not_allowed",
                 message: "Requests from the origin '\(origin)' are refused: web pages other than this server's own may not use it. To let a page of yours call it, list its origin (such as https://app.example.com) in serve.corsOrigins.")
    }
}
