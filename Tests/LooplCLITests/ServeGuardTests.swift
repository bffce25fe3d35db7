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

    /// Starts `loopl serve ARGUMENTS` with `serve` as its config's serve object, runs guard_check.py's
    /// `checks` on it and stops it; returns what it printed before listening.
    @discardableResult
    static func check(_ checks: [String], serve: JSONObject = [:], _ arguments: [String] = [], key: String? = nil,
                      extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let server = try ServeProcess(arguments + (key.map { ["--api-key", $0] } ?? []), config: try config(serve: serve))
        try server.expect("guard_check.py", ["--port", String(server.port)] + (key.map { ["--key", $0] } ?? []) + extra,
                          checks: checks, sourceLocation: sourceLocation)
        #expect(server.stop().status == 0, sourceLocation: sourceLocation)
        return server.banner
    }

    @Test(.timeLimit(.minutes(3)))
    func aHostTheServerDoesNotAnswerToGets421() throws {
        try Self.check(["hosts"])
        let proxied = try Self.check(["allowed-hosts"], serve: ["allowedHosts": ["Proxy.example"]], extra: ["--allowed", "proxy.example"])
        #expect(!proxied.contains("warning:"), "\(proxied)")
        let any = try Self.check(["any-host"], serve: ["allowedHosts": ["*"]])
        #expect(any.contains("warning: serve.allowedHosts is \"*\""), "\(any)")
    }

    @Test(.timeLimit(.minutes(3)))
    func aPageOfAnotherSiteGets403BeforeTheKey() throws {
        try Self.check(["browsers"], key: "secret")
        try Self.check(["browsers"])
        try Self.check(["listed-origin"], serve: ["corsOrigins": ["app://loopl-desktop"]], extra: ["--origin", "app://loopl-desktop"])
    }

    @Test(.timeLimit(.minutes(3)))
    func aBodyNotSentAsJSONGets415AndStartsNothing() throws {
        let sessions = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-sessions-\(UUID())").path
        try Self.check(["json-bodies"], serve: ["sessionsDir": .string(sessions)], extra: ["--sessions-dir", sessions])
    }

    @Test(.timeLimit(.minutes(3)))
    func everyAnswerCarriesThePagesHeaders() throws {
        try Self.check(["headers"], key: "secret")
    }
}
