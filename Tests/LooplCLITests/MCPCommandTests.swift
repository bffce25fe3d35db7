import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// `--mcp`, `--tool-choice` with MCP tools, and `loopl tools`.
@Suite(.serialized) struct MCPCommandTests {
    static let testServer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/MCP/test_mcp_server.py").path

    /// Where scripts/mcp-servers put the real servers.
    static var realServers: String {
        let environment = ProcessInfo.processInfo.environment
        if let bin = environment["LOOPL_MCP_BIN"] { return bin }
        return (environment["LOOPL_HOME"] ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache/loopl")) + "/mcp-servers/bin"
    }

    /// A config file with `servers` as its mcpServers; removed after `body`.
    func withConfig(_ servers: JSONObject, _ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-mcp-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try JSONValue.object(["mcpServers": .object(servers)]).jsonText().write(toFile: path, atomically: true, encoding: .utf8)
        try await body(path)
    }

    static func test(_ mode: String) -> JSONValue {
        ["command": "python3", "args": [.string(testServer), .string(mode)], "timeoutSeconds": 20]
    }

    @Test func toolsListsEveryToolAndTheServersThatFailed() async throws {
        try await withConfig(["good": Self.test("legacy"), "dead": Self.test("exit")]) { config in
            let result = await CapturedConsole.run(["tools", "--config", config, "--json"])
            #expect(result.status == .failure)
            let listing = try JSONValue(parsing: result.out)
            #expect(listing["builtIn"]?.arrayValue?.contains { $0["name"] == "calculator" && $0["enable"] == "--tools calc" } == true)
            let servers = listing["servers"]?.arrayValue ?? []
            #expect(servers.map { $0["name"] } == ["dead", "good"])
            #expect(servers.first?["error"]?.stringValue?.contains("no licence") == true)
            let tools = servers.last?["tools"]?.arrayValue ?? []
            #expect(tools.count == 10)
            #expect(tools.first?["name"] == "good_echo")
            #expect(tools.first?["parameters"]?["required"] == ["text"])
            let text = await CapturedConsole.run(["tools", "--config", config])
            #expect(text.out.contains("MCP server 'dead': failed:"))
            #expect(text.out.contains("  good_echo (server's name: echo): Says the text back."))
        }
    }

    @Test func aToolChoiceNoServerOffersIsAUsageError() async throws {
        try await withConfig(["good": Self.test("legacy"), "dead": Self.test("exit")]) { config in
            let result = await CapturedConsole.run(["run", "--config", config, "--mcp", "all", "--tools", "calc", "--json",
                                                    "--tool-choice", "good_nope", "Hi"])
            #expect(result.status == .usage)
            #expect(result.err.contains("'good_nope'"))
            #expect(result.err.contains("calculator, good_echo, good_structured"))
            let warnings = try result.out.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            #expect(warnings.count == 1)
            #expect(warnings.first?["event"] == "warning")
            #expect(warnings.first?["message"]?.stringValue?.contains("MCP server 'dead' is not available") == true)
            let unknown = await CapturedConsole.run(["run", "--config", config, "--mcp", "nope", "Hi"])
            #expect(unknown.status == .failure)
            #expect(unknown.err.contains("No MCP server named 'nope'") && unknown.err.contains("dead, good"))
        }
    }

    /// Tests/Data/MCP/http_misbehaving_server.py in `mode`, its port, and its stderr (the requests it took).
    static func httpServer(_ mode: String) throws -> (process: Process, port: Int, log: Pipe) {
        let python = Self.realServers + "/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "\(python) is missing: run scripts/mcp-servers")
        let server = Process()
        let output = Pipe(), log = Pipe()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = [URL(fileURLWithPath: Self.testServer).deletingLastPathComponent().appendingPathComponent("http_misbehaving_server.py").path, mode]
        server.standardOutput = output
        server.standardError = log
        try server.run()
        var line = ""
        while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A { line.append(Character(UnicodeScalar(byte))) }
        guard let port = Int(line.dropFirst("PORT ".count)) else {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
            throw LooplError(.processFailed, "the test server did not print its port: \(line)")
        }
        return (server, port, log)
    }

    /// Kills a server of ``httpServer(_:)`` and returns its log.
    @discardableResult
    static func stop(_ server: (process: Process, port: Int, log: Pipe)) -> String {
        if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) }
        server.process.waitUntilExit()
        return String(decoding: server.log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// A server over HTTP (Tests/Data/MCP/http_misbehaving_server.py, well-behaved), listed and enabled like a stdio one.
    @Test func anHTTPServerIsListedAndEnabledLikeAStdioOne() async throws {
        let server = try Self.httpServer("good")
        defer { Self.stop(server) }
        let url = "http://127.0.0.1:\(server.port)/mcp"
        try await withConfig(["web": ["url": .string(url), "headers": ["Authorization": "Bearer hidden-token"]]]) { config in
            let result = await CapturedConsole.run(["tools", "--config", config, "--json"])
            #expect(result.status == .success, "\(result.err)")
            #expect(!result.out.contains("hidden-token"))
            let servers = try JSONValue(parsing: result.out)["servers"]?.arrayValue ?? []
            #expect(servers.first?["url"] == .string(url) && servers.first?["type"] == "automatic", "\(servers)")
            #expect(servers.first?["revision"] == "2025-06-18")
            #expect(servers.first?["tools"]?.arrayValue?.map { $0["name"] } == ["web_echo"])
            let run = await CapturedConsole.run(["run", "--config", config, "--mcp", "web", "--tool-choice", "web_nope", "Hi"])
            #expect(run.status == .usage && run.err.contains("offered: web_echo"), "\(run.err)")
        }
    }

    /// `loopl run` on the scripted reference worker, calling an HTTP server's tool twice; the
    /// server forgets its session after the first call. The second call goes again on a new
    /// session, the run ends with the answer, and at exit the live session is ended with DELETE.
    @Test(.timeLimit(.minutes(2)))
    func aRunOnAServerThatForgetsItsSessionEndsWithTheAnswerAndDeletesTheSession() async throws {
        let server = try Self.httpServer("forget")
        defer { Self.stop(server) }
        let folder = try ScriptedWorker.folder("mcp-forget")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let echo = { (text: String) in ScriptedWorker.call("web_echo", ["text": .string(text)]) }
        let config = try ScriptedWorker.config(in: folder, turns: [echo("one"), echo("two"), ["chunks": ["Both", " echoed."]]],
                                               extra: ["mcpServers": ["web": ["url": .string("http://127.0.0.1:\(server.port)/mcp")]]])
        let run = try ToolingCommandTests.loopl(["run", "--config", config, "--mcp", "web", "--json", "Echo twice."], within: .seconds(60))
        #expect(run.status == 0, "\(run.err)")
        let events = run.out.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
        let results = events.filter { $0["event"] == "toolFinished" }.map { $0["result"]?["content"] }
        #expect(results == ["one", "two"], "\(run.out)")
        #expect(events.last?["event"] == "finished" && run.out.contains("Both echoed."), "\(run.out)")
        let lines = Self.stop(server).components(separatedBy: "\n")
        let sessions = lines.filter { $0.hasPrefix("tools/call ") }.compactMap { $0.split(separator: " ").first { $0.hasPrefix("session=") } }
        #expect(sessions.count == 3 && Set(sessions).count == 2, "\(lines)")
        #expect(lines.contains("DELETE \(sessions.last ?? "?")"), "the live session was not ended at exit: \(lines)")
    }

    @Test func thousandsOfToolsWarnAboutTheContext() async throws {
        try await withConfig(["many": Self.test("many")]) { config in
            let result = await CapturedConsole.run(["run", "--config", config, "--mcp", "many", "--tool-choice", "none",
                                                    "--max-tokens", "1", "--max-iterations", "1", "--json", "Hi"])
            let warnings = result.out.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
                .filter { $0["event"] == "warning" }.compactMap { $0["message"]?.stringValue }
            #expect(warnings.contains { $0.contains("3000 enabled tools take about") }, "\(result.out.prefix(600)) \(result.err)")
            #expect(warnings.contains { $0.contains("MCP server 'many': 3000 (about") }, "\(warnings)")
            let chosen = await CapturedConsole.run(["run", "--config", config, "--mcp", "many", "--tools", "calc", "--tool-choice", "many_t0007",
                                                    "--max-tokens", "1", "--max-iterations", "1", "--json", "Hi"])
            let advice = chosen.out.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
                .filter { $0["event"] == "warning" }.compactMap { $0["message"]?.stringValue }
            #expect(advice.contains { $0.contains("the built-in tools: 1 (about") && $0.contains("narrow MCP server 'many' with \"tools\": [\"t0007\"]") },
                    "\(advice) \(chosen.err)")
        }
    }

    /// The real time server, called with the call forced, on the default model; its answer reaches the next turn.
    @Test(.timeLimit(.minutes(10)))
    func theTimeServerAnswersThroughMCP() async throws {
        let command = Self.realServers + "/mcp-server-time"
        try #require(FileManager.default.isExecutableFile(atPath: command), "\(command) is missing: run scripts/mcp-servers")
        let session = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-mcp-session-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: session) }
        try await withConfig(["time": ["command": .string(command), "args": ["--local-timezone", "UTC"]]]) { config in
            let result = await CapturedConsole.run(["run", "--config", config, "--mcp", "time", "--tool-choice", "time_get_current_time",
                                                    "--temperature", "0", "--max-iterations", "2", "--max-tokens", "48",
                                                    "--session", session, "--json", "What time is it in UTC?"])
            #expect(result.status == .success, "stderr: \(result.err)")
            let events = try result.out.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            let finished = try #require(events.first { $0["event"] == "toolFinished" }?["result"], "no tool ran: \(result.out.prefix(500))")
            #expect(finished["name"] == "time_get_current_time")
            #expect(finished["isError"] == false)
            #expect(finished["content"]?.stringValue?.contains("\"timezone\": \"UTC\"") == true, "\(finished)")
            #expect(events.contains { $0["event"] == "iterationStarted" && $0["iteration"] == 2 })
            let messages = try SessionFile.load(session)
            let toolIndex = try #require(messages.firstIndex { $0.role == "tool" })
            #expect(messages[toolIndex].text.contains("datetime"))
            #expect(messages.count > toolIndex + 1, "no turn after the tool result")
        }
    }
}
