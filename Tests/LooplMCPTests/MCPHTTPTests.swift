import Foundation
import Loopl
@testable import LooplMCP
import LooplTestKit
import Synchronization
import Testing

/// MCP servers over HTTP: the official SDK's server on Streamable HTTP and on HTTP+SSE, and a
/// server that misbehaves on purpose.
@Suite(.serialized) struct MCPHTTPTests {
    static func client(_ url: URL, kind: MCPHTTPEndpoint.Kind = .automatic, headers: [String: String] = [:],
                       timeout: Duration = .seconds(20)) -> MCPClient {
        MCPClient(config: MCPServerConfig(name: "web", http: MCPHTTPEndpoint(url: url, kind: kind, headers: headers), timeout: timeout))
    }

    @Test func theSDKsStreamableHTTPServerListsAndRunsItsTools() async throws {
        let server = try HTTPTestServer("http_mcp_server.py", ["streamable-http"])
        defer { server.stop() }
        let client = Self.client(server.url("/mcp"))
        try await client.start()
        #expect(Set(client.catalog.tools.map(\.name)) == ["echo", "add", "steps"])
        // The current, stateless revision: the SDK takes it once the body's version, method and
        // name are mirrored in the headers (the handshake revisions are the misbehaving server's).
        #expect(await client.revision == MCPClient.statelessRevision)
        #expect(try await client.call("echo", arguments: ["text": "over HTTP"]) == "over HTTP")
        #expect(try await client.call("add", arguments: ["a": 2, "b": 40]) == "42")
        // Progress notifications come on the answer's event stream before the result.
        #expect(try await client.call("steps", arguments: ["count": 3]) == "done after 3 steps")
        await client.shutdown()
    }

    @Test func statelessRequestsMirrorTheirBodyInHeaders() {
        let meta: JSONValue = ["io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": [:]]
        let call = RPCMessage.request(id: 1, method: "tools/call", params: ["name": "café", "arguments": [:], "_meta": meta])
        #expect(MCPHTTPConnection.mirrored(call) == ["MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                                                     "Mcp-Name": "=?base64?Y2Fmw6k=?="])
        let list = RPCMessage.request(id: 2, method: "tools/list", params: ["_meta": meta])
        #expect(MCPHTTPConnection.mirrored(list) == ["MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"])
        #expect(MCPHTTPConnection.mirrored(.request(id: 3, method: "initialize", params: [:])).isEmpty)
        #expect(MCPHTTPConnection.headerValue("echo") == "echo")
        #expect(MCPHTTPConnection.headerValue(" echo") == "=?base64?IGVjaG8=?=")
    }

    @Test func anAgentCallsTheToolsOfAServerOverHTTP() async throws {
        let server = try HTTPTestServer("http_mcp_server.py", ["streamable-http"])
        defer { server.stop() }
        let hub = MCPHub(configs: [MCPServerConfig(name: "web", http: MCPHTTPEndpoint(url: server.url("/mcp")), timeout: .seconds(20))])
        let started = await hub.start(try hub.select(["all"]))
        #expect(started.failures.isEmpty, "\(started.warnings)")
        let turns = Mutex(0)
        let model = ScriptedModel() { _ in
            switch turns.withLock({ $0 += 1; return $0 }) {
            case 1: return .toolCalls([ToolCall(name: "web_add", arguments: ["a": 20, "b": 22]),
                                       ToolCall(name: "web_steps", arguments: ["count": 2])])
            default: return .text(["done"])
            }
        }
        let agent = Agent(model: model, toolSources: [started.source])
        var results: [ToolResult] = []
        for try await event in agent.stream("add them") {
            if case .toolFinished(let result) = event { results.append(result) }
        }
        await hub.shutdown()
        #expect(results.map(\.content) == ["42", "done after 2 steps"], "\(results)")
        #expect(results.allSatisfy { !$0.isError })
    }

    @Test func anSSEServerIsReachedThroughTheFallback() async throws {
        let server = try HTTPTestServer("http_mcp_server.py", ["sse"])
        defer { server.stop() }
        let client = Self.client(server.url("/sse"))
        try await client.start()
        #expect(Set(client.catalog.tools.map(\.name)) == ["echo", "add", "steps"])
        #expect(try await client.call("echo", arguments: ["text": "through SSE"]) == "through SSE")
        #expect(try await client.call("steps", arguments: ["count": 2]) == "done after 2 steps")
        await client.shutdown()
        // With "type": "http" there is no fallback.
        let strict = Self.client(server.url("/sse"), kind: .streamable, timeout: .seconds(5))
        await #expect(throws: LooplError.self) { try await strict.start() }
        await strict.shutdown()
    }

    /// `"type": "sse"` speaks HTTP+SSE from the start: the stream first, then its endpoint's POSTs.
    @Test func anSSEEntryOpensTheStreamFirst() async throws {
        let server = try HTTPTestServer("http_mcp_server.py", ["sse"])
        defer { server.stop() }
        let client = Self.client(server.url("/sse"), kind: .sse)
        try await client.start()
        #expect(Set(client.catalog.tools.map(\.name)) == ["echo", "add", "steps"])
        #expect(try await client.call("echo", arguments: ["text": "declared SSE"]) == "declared SSE")
        await client.shutdown()
    }

    @Test func theTimeServerBehindTheSDKsHTTPTransportTellsTheTime() async throws {
        let server = try HTTPTestServer("http_mcp_server.py", ["streamable-http", "time"])
        defer { server.stop() }
        let client = Self.client(server.url("/mcp"))
        let text = try await client.call("get_current_time", arguments: ["timezone": "Europe/Paris"])
        await client.shutdown()
        #expect(try JSONValue(parsing: text)["timezone"] == "Europe/Paris", "\(text)")
    }

    @Test func aSessionTheServerForgetsIsStartedAgain() async throws {
        let server = try HTTPTestServer("http_misbehaving_server.py", ["forget"])
        defer { server.stop() }
        let client = Self.client(server.url("/mcp"))
        #expect(try await client.call("echo", arguments: ["text": "one"]) == "one")
        #expect(try await client.call("echo", arguments: ["text": "two"]) == "two")
        await client.shutdown()
        let log = server.stop()
        #expect(log.components(separatedBy: "\n").filter { $0.hasPrefix("initialize ") }.count == 2, "\(log)")
        // The session's id and the agreed revision go on every request after initialize.
        let calls = log.components(separatedBy: "\n").filter { $0.hasPrefix("tools/call ") }
        #expect(calls.count == 3 && calls.allSatisfy { !$0.contains("session=None") && $0.contains("version=2025-06-18") }, "\(log)")
        // Each session opened the GET stream once it was ready, and the last one was ended with DELETE.
        let lines = log.components(separatedBy: "\n")
        #expect(lines.filter { $0.hasPrefix("GET session=") && !$0.contains("session=None") && $0.contains("accept=text/event-stream") }.count == 2, "\(log)")
        let last = calls.last?.split(separator: " ").first { $0.hasPrefix("session=") }.map(String.init) ?? "?"
        #expect(lines.contains("DELETE \(last)"), "\(log)")
    }

    @Test func aTokenInTheHeadersIsSentAndNeverShown() async throws {
        let server = try HTTPTestServer("http_misbehaving_server.py", ["unauthorized"])
        defer { server.stop() }
        let config = try MCPServerConfig(name: "web", json: ["url": .string(server.url("/mcp").absoluteString),
                                                              "headers": ["Authorization": "Bearer ${WEB_TOKEN}"]],
                                         variables: ["WEB_TOKEN": "sesame"])
        #expect(!"\(config)".contains("sesame"))
        let client = MCPClient(config: config)
        #expect(try await client.call("echo", arguments: ["text": "let in"]) == "let in")
        await client.shutdown()
        // A wrong token is refused with a hint, and the token is not in the message.
        let wrong = Self.client(server.url("/mcp"), headers: ["Authorization": "Bearer not-the-word"])
        do {
            try await wrong.start()
            Issue.record("a wrong token was let in")
        } catch let error as LooplError {
            #expect(error.code == .unauthorized && error.message.contains("may need a token") && !error.message.contains("not-the-word"), "\(error)")
        }
        await wrong.shutdown()
    }

    /// Each failure gives a warning that names the server, and the start goes on without it.
    @Test(arguments: [
        ("refuse", "Cannot reach MCP server 'bad' at 127.0.0.1:"),
        ("unauthorized", "with HTTP 401"),
        ("notjson", "a body that is not JSON"),
        ("stall", "did not answer"),
        ("drop", "ended the session"),
        ("huge", "a body larger than 16 MiB"),
        ("elsewhere", "not on the server's own origin"),
    ])
    func aMisbehavingServerGivesAWarningAndTheRunGoesOn(mode: String, expected: String) async throws {
        let server = try HTTPTestServer("http_misbehaving_server.py", [mode])
        defer { server.stop() }
        let good = try HTTPTestServer("http_misbehaving_server.py", ["good"])
        defer { good.stop() }
        let hub = MCPHub(configs: [
            MCPServerConfig(name: "bad", http: MCPHTTPEndpoint(url: server.url("/mcp")), timeout: .seconds(2)),
            MCPServerConfig(name: "good", http: MCPHTTPEndpoint(url: good.url("/mcp")), timeout: .seconds(10)),
        ])
        let started = await hub.start(try hub.select(["all"]))
        await hub.shutdown()
        #expect(started.failures.map(\.server) == ["bad"])
        #expect(started.tools.map(\.name) == ["good_echo"])
        let warning = started.warnings.first { $0.contains("'bad'") } ?? ""
        #expect(warning.contains("MCP server 'bad' is not available") && warning.contains(expected), "\(started.warnings)")
        if mode == "unauthorized" { #expect(warning.contains("may need a token")) }
        // A request that timed out is cancelled, as on stdio.
        if mode == "stall" {
            let log = server.stop()
            #expect(log.contains("notifications/cancelled"), "\(log)")
        }
    }
}
