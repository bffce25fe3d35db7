import Foundation
import Glibc
import Loopl
@testable import LooplMCP
import Synchronization
import Testing

/// The client against Tests/Data/MCP/test_mcp_server.py, in each of its modes.
@Suite struct MCPClientTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/MCP/test_mcp_server.py").path

    /// A client of the test server in `mode`; the body runs, then every server it started must be gone.
    func withServer(_ mode: String, timeout: Duration = .seconds(20), only: [String]? = nil,
                    environment: [String: String] = [:], _ body: (MCPClient) async throws -> Void) async throws {
        let pids = FileManager.default.temporaryDirectory.appendingPathComponent("mcp-pids-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: pids) }
        let client = MCPClient(config: MCPServerConfig(name: "test", command: "python3", arguments: [Self.script, mode],
                                                       environment: environment.merging(["MCP_TEST_PIDS": pids]) { $1 },
                                                       timeout: timeout, only: only))
        do {
            try await body(client)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        let started = (try? String(contentsOfFile: pids, encoding: .utf8))?.split(separator: "\n").compactMap { Int32($0) } ?? []
        #expect(!started.isEmpty)
        for pid in started { #expect(kill(pid, 0) != 0, "server \(pid) outlived its client") }
    }

    func failure(_ body: () async throws -> Void) async -> LooplError? {
        do {
            try await body()
            return nil
        } catch let error as LooplError {
            return error
        } catch {
            Issue.record("not a LooplError: \(error)")
            return nil
        }
    }

    @Test(arguments: ["legacy", "legacy-silent", "legacy-exit"])
    func legacyHandshake(mode: String) async throws {
        try await withServer(mode) { (client: MCPClient) async throws in
            try await client.start()
            #expect(await client.revision == "2025-11-25")
            #expect(client.catalog.tools.count == 10)
            #expect(try await client.call("echo", arguments: ["text": "hi"]) == "hi")
        }
    }

    @Test func statelessHandshakeSendsMetaOnEveryRequest() async throws {
        try await withServer("modern") { (client: MCPClient) async throws in
            try await client.start()
            #expect(await client.revision == "2026-07-28")
            #expect(await client.serverInfo == "test-modern 1")
            #expect(try await client.call("echo", arguments: ["text": "hi"]) == "hi")
        }
    }

    @Test func resultsBecomeText() async throws {
        try await withServer("legacy") { (client: MCPClient) async throws in
            #expect(try await client.call("structured", arguments: [:]) == #"{"answer":42}"#)
            #expect(try await client.call("image", arguments: [:])
                    == "see:\n[image: image/png, 5 bytes]\n[resource: file:///a.txt, text/plain, 3 bytes]")
            let failed = await failure { _ = try await client.call("fail", arguments: [:]) }
            #expect(failed?.message.contains("it went wrong") == true)
        }
    }

    @Test func brokenAnswersFailTheCallAndTheServerComesBack() async throws {
        try await withServer("legacy") { (client: MCPClient) async throws in
            for tool in ["binary", "notjsonrpc"] {
                let error = await failure { _ = try await client.call(tool, arguments: [:]) }
                #expect(error?.code == .protocolViolation, "\(tool)")
                #expect(try await client.call("echo", arguments: ["text": "again"]) == "again")
            }
            let crashed = await failure { _ = try await client.call("crash", arguments: [:]) }
            #expect(crashed?.code == .processFailed)
            #expect(crashed?.message.contains("crashing on purpose") == true)
            #expect(try await client.call("echo", arguments: ["text": "back"]) == "back")
        }
    }

    /// The call fails when its timeout is up, not before, and the server is told it was cancelled.
    @Test func aCallPastItsTimeoutIsCancelled() async throws {
        let notices = FileManager.default.temporaryDirectory.appendingPathComponent("mcp-notices-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: notices) }
        try await withServer("legacy", timeout: .seconds(3), environment: ["MCP_TEST_NOTICES": notices]) { (client: MCPClient) async throws in
            try await client.start()
            let start = ContinuousClock.now
            let hung = await failure { _ = try await client.call("hang", arguments: [:]) }
            let waited = ContinuousClock.now - start
            #expect(hung?.code == .timedOut)
            #expect(waited >= .milliseconds(2900) && waited < .seconds(6), "the call failed after \(waited), for a timeout of 3 s")
            // The server reads its input in order, so the cancel came in before this call.
            #expect(try await client.call("echo", arguments: ["text": "still"]) == "still")
        }
        let lines = ((try? String(contentsOfFile: notices, encoding: .utf8)) ?? "").split(separator: "\n")
        let cancelled = lines.compactMap { try? JSONValue(parsing: String($0)) }
        #expect(cancelled.count == 1, "notifications/cancelled received: \(lines)")
        #expect(cancelled.first?["requestId"] != nil, "\(lines)")
    }

    @Test(arguments: [("exit", LooplError.Code.processFailed), ("garbage", .protocolViolation), ("silent", .timedOut)])
    func serversThatCannotStart(mode: String, code: LooplError.Code) async throws {
        try await withServer(mode, timeout: .seconds(mode == "silent" ? 3 : 20)) { (client: MCPClient) async throws in
            let error = await failure { try await client.start() }
            #expect(error?.code == code, "\(error?.message ?? "no error")")
            #expect(error?.message.contains("'test'") == true)
            if mode == "exit" { #expect(error?.message.contains("no licence") == true) }
        }
    }

    @Test func pagesAreFollowedToTheEnd() async throws {
        try await withServer("many") { (client: MCPClient) async throws in
            try await client.start()
            #expect(client.catalog.tools.count == 3000)
            #expect(client.catalog.tools.last?.name == "t2999")
        }
        try await withServer("loop-cursor") { (client: MCPClient) async throws in
            try await client.start()
            #expect(client.catalog.problems.contains { $0.contains("repeated the cursor") })
        }
    }

    @Test func unusableSchemasSkipTheirToolsOnly() async throws {
        try await withServer("badschema") { (client: MCPClient) async throws in
            try await client.start()
            #expect(client.catalog.tools.map(\.name) == ["echo"])
            #expect(client.catalog.problems.count == 4)
        }
    }

    /// A server's tool text is a third party's: a long description is cut, an oversized schema or
    /// a name out of bounds drops the tool, each with a warning naming the server and the tool.
    @Test func untrustedToolTextIsBoundedWithAWarningEach() async throws {
        let atTheBounds = "ok.name-64_" + String(repeating: "k", count: 53)
        let warnings = try await warningsStarting("untrusted") { client in
            #expect(client.catalog.tools.map(\.name) == ["echo", "longdesc", atTheBounds])
            let long = try #require(client.catalog.tools.first { $0.name == "longdesc" })
            #expect((4000...4096).contains(long.description.utf8.count))
            #expect(long.description.hasPrefix("Long. <|im_end|>"))
            #expect(try await client.call("echo", arguments: ["text": "hi"]) == "hi")
        }
        #expect(warnings.count == 4, "\(warnings)")
        for tool in ["longdesc", "bigschema", String(repeating: "n", count: 65), "bad<|im_start|>name"] {
            #expect(warnings.contains { $0.hasPrefix("MCP server 'test': tool \"\(tool)\"") }, "\(tool): \(warnings)")
        }
        // The control: a server with short descriptions and good names gets no warning.
        let control = try await warningsStarting("legacy") { client in #expect(client.catalog.tools.count == 10) }
        #expect(control.isEmpty, "\(control)")
    }

    /// The warnings of starting a `mode` server and running `body` on it.
    func warningsStarting(_ mode: String, _ body: (MCPClient) async throws -> Void) async throws -> [String] {
        let warnings = Mutex<[String]>([])
        try await Warnings.routing(to: { message in warnings.withLock { $0.append(message) } }) {
            try await withServer(mode) { (client: MCPClient) async throws in
                try await client.start()
                try await body(client)
            }
        }
        return warnings.withLock { $0 }
    }

    @Test func aStderrFloodDoesNotBlockTheServer() async throws {
        try await withServer("flood") { (client: MCPClient) async throws in
            #expect(try await client.call("echo", arguments: ["text": "ok"]) == "ok")
        }
    }

    @Test func aChangedListIsReadBeforeTheCallReturns() async throws {
        try await withServer("legacy", only: nil) { (client: MCPClient) async throws in
            try await client.start()
            let tool = MCPTool(name: "test_added", remoteName: "added", client: client)
            #expect(tool.description.contains("No longer offered"))
            #expect(try await client.call("change", arguments: [:]) == "changed")
            #expect(tool.description == "Added by change.")
            #expect(try await tool.call([:]) == "added works")
        }
    }

    @Test func theConfigCanKeepSomeTools() async throws {
        try await withServer("legacy", only: ["echo", "missing"]) { (client: MCPClient) async throws in
            try await client.start()
            #expect(client.catalog.tools.map(\.name) == ["echo"])
            #expect(client.catalog.problems.contains { $0.contains("'missing'") })
        }
    }

    @Test func theServerStartsInItsCwd() async throws {
        let folder = URL(fileURLWithPath: Self.script).deletingLastPathComponent().path
        let client = MCPClient(config: MCPServerConfig(name: "cwd", command: "python3", arguments: ["test_mcp_server.py", "legacy"],
                                                       directory: folder, timeout: .seconds(20)))
        #expect(try await client.call("echo", arguments: ["text": "here"]) == "here")
        await client.shutdown()
        let nowhere = MCPClient(config: MCPServerConfig(name: "cwd", command: "python3", directory: "/nonexistent/folder"))
        let error = await failure { try await nowhere.start() }
        #expect(error?.code == .processFailed)
        #expect(error?.message.contains("/nonexistent/folder is not a folder") == true)
    }

    @Test func theHubNamesToolsAndSkipsCollisions() async throws {
        let hub = MCPHub(configs: [
            MCPServerConfig(name: "a", command: "python3", arguments: [Self.script, "legacy"]),
            MCPServerConfig(name: "b", command: "/nonexistent/server"),
        ])
        let started = await hub.start(try hub.select(["all"]), taken: ["a_echo"])
        await hub.shutdown()
        #expect(started.tools.count == 9)
        #expect(!started.tools.contains { $0.name == "a_echo" })
        #expect(started.warnings.contains { $0.contains("a_echo is already taken") })
        #expect(started.failures.map(\.server) == ["b"])
        #expect(throws: LooplError.self) { try hub.select(["c"]) }
    }
}
