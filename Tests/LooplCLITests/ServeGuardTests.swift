import Foundation
import Loopl
import Testing

/// What `loopl serve` does with the requests a web page can make a browser send it (DNS
/// rebinding, a page of another site, a body sent without a preflight) and the headers on its
/// answers, through guard_check.py over raw HTTP, on a scripted worker.
@Suite(.serialized) struct ServeGuardTests {
    static func config(serve: JSONObject = [:]) throws -> String {
        try ServeProcess.config(["default": "python", "serve": .object(serve), "backends": [
            "python": ["kind": "stdio", "command": ["python3", "backends/python/worker.py", "--script", "backends/python/script.json"]],
        ]])
    }

    static func check(_ server: ServeProcess, _ checks: [String], key: String? = nil, extra: [String] = [],
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        try server.expect("guard_check.py", ["--port", String(server.port)] + (key.map { ["--key", $0] } ?? []) + extra,
                          checks: checks, sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(.minutes(3)))
    func aHostTheServerDoesNotAnswerToGets421() throws {
        let server = try ServeProcess([], config: try Self.config())
        try Self.check(server, ["hosts"])
        #expect(server.stop().status == 0)
        let proxied = try ServeProcess([], config: try Self.config(serve: ["allowedHosts": ["Proxy.example"]]))
        try Self.check(proxied, ["allowed-hosts"], extra: ["--allowed", "proxy.example"])
        #expect(!proxied.banner.contains("warning:"), "\(proxied.banner)")
        #expect(proxied.stop().status == 0)
        let any = try ServeProcess([], config: try Self.config(serve: ["allowedHosts": ["*"]]))
        try Self.check(any, ["any-host"])
        #expect(any.banner.contains("warning: serve.allowedHosts is \"*\""), "\(any.banner)")
        #expect(any.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aPageOfAnotherSiteGets403BeforeTheKey() throws {
        let keyed = try ServeProcess(["--api-key", "secret"], config: try Self.config())
        try Self.check(keyed, ["browsers"], key: "secret")
        #expect(keyed.stop().status == 0)
        let open = try ServeProcess([], config: try Self.config())
        try Self.check(open, ["browsers"])
        #expect(open.stop().status == 0)
        let desktop = try ServeProcess([], config: try Self.config(serve: ["corsOrigins": ["app://loopl-desktop"]]))
        try Self.check(desktop, ["listed-origin"], extra: ["--origin", "app://loopl-desktop"])
        #expect(desktop.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aBodyNotSentAsJSONGets415AndStartsNothing() throws {
        let sessions = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-sessions-\(UUID())").path
        let server = try ServeProcess([], config: try Self.config(serve: ["sessionsDir": .string(sessions)]))
        try Self.check(server, ["json-bodies"], extra: ["--sessions-dir", sessions])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func everyAnswerCarriesThePagesHeaders() throws {
        let server = try ServeProcess(["--api-key", "secret"], config: try Self.config())
        try Self.check(server, ["headers"], key: "secret")
        #expect(server.stop().status == 0)
    }
}
