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

    /// A server over HTTP (Tests/Data/MCP/http_misbehaving_server.py, well-behaved), listed and enabled like a stdio one.
    @Test func anHTTPServerIsListedAndEnabledLikeAStdioOne() async throws {
        let python = Self.realServers + "/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "\(python) is missing: run scripts/mcp-servers")
        let server = Process()
        let output = Pipe()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = [URL(fileURLWithPath: Self.testServer).deletingLastPathComponent().appendingPathComponent("http_misbehaving_server.py").path, "good"]
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var line = ""
        while let byte = output.fileHandleForReading.readData(ofLength: 1).first, byte != 0x0A { line.append(Character(UnicodeScalar(byte))) }
        let port = try #require(Int(line.dropFirst("PORT ".count)), "\(line)")
        let url = "http://127.0.0.1:\(port)/mcp"
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
