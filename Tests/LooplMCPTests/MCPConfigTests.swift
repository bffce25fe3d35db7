import Loopl
@testable import LooplMCP
import Testing

@Suite struct MCPConfigTests {
    @Test func readsAnEntryAndExpandsVariables() throws {
        let json = try JSONValue(parsing: #"{"command": "srv", "args": ["--root", "${HOME}/x"], "env": {"K": "${TOKEN}"}, "cwd": "/tmp", "timeoutSeconds": 5, "tools": ["a"]}"#)
        let config = try MCPServerConfig(name: "s", json: json, variables: ["HOME": "/h", "TOKEN": "t"])
        #expect(config.arguments == ["--root", "/h/x"])
        #expect(config.environment == ["K": "t"])
        #expect(config.directory == "/tmp")
        #expect(config.timeout == .seconds(5))
        #expect(config.only == ["a"])
    }

    @Test func rejectsUnsetVariablesUnknownKeysAndBadNames() throws {
        func problem(_ text: String, name: String = "s") -> String? {
            do {
                _ = try MCPServerConfig.all([name: try JSONValue(parsing: text)], variables: [:])
                return nil
            } catch let error as LooplError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(problem(#"{"command": "x", "args": ["${NOPE}"]}"#)?.contains("${NOPE}") == true)
        #expect(problem(#"{"command": "x", "arg": []}"#)?.contains("unknown key 'arg'") == true)
        #expect(problem(#"{"args": []}"#)?.contains("'command' is missing") == true)
        #expect(problem(#"{"command": "x", "timeoutSeconds": 0}"#)?.contains("timeoutSeconds") == true)
        #expect(problem(#"{"command": "x"}"#, name: "a b")?.contains("may hold only") == true)
        #expect(problem(#"{"command": "x"}"#) == nil)
    }
}

@Suite struct MCPServersInConfigFileTests {
    static let kind = BackendKind(name: "fake", builtIn: [:], read: { _ in () }, start: { _ in throw LooplError(.closed, "unused") })

    @Test func aFileWithOnlyServersUsesTheBuiltInBackends() throws {
        let config = try LooplConfig(json: #"{"mcpServers": {"time": {"command": "t"}}}"#, kinds: [Self.kind])
        #expect(config.defaultBackend == "fake")
        #expect(try MCPServerConfig.all(config.mcpServers).map(\.name) == ["time"])
    }

    @Test func serversSitBesideBackends() throws {
        let config = try LooplConfig(json: #"{"backends": {"fake": {"kind": "fake"}}, "mcpServers": {}}"#, kinds: [Self.kind])
        #expect(config.mcpServers.isEmpty)
        #expect(throws: LooplError.self) { try LooplConfig(json: #"{"mcpServers": []}"#, kinds: [Self.kind]) }
    }

    @Test func toolNamesStayWithin64Characters() {
        #expect(MCPTool.name(server: "time", tool: "get_current_time") == "time_get_current_time")
        #expect(MCPTool.name(server: "a.b", tool: "x y") == "a_b_x_y")
        let long = MCPTool.name(server: "server", tool: String(repeating: "t", count: 80))
        #expect(long.count == 64)
        #expect(long != MCPTool.name(server: "server", tool: String(repeating: "t", count: 81)))
    }
}

/// `mcpServers` entries with a `url`.
@Suite struct MCPHTTPConfigTests {
    @Test func aURLEntryReadsItsTypeHeadersAndTimeout() throws {
        let config = try MCPServerConfig(name: "remote", json: [
            "url": "https://tools.example.com/mcp", "type": "sse", "timeoutSeconds": 5, "tools": ["search"],
            "headers": ["Authorization": "Bearer ${TOKEN}", "X-Team": "blue"],
        ], variables: ["TOKEN": "s3cret"])
        #expect(config.http?.url.absoluteString == "https://tools.example.com/mcp")
        #expect(config.http?.kind == .sse)
        #expect(config.http?.headers == ["Authorization": "Bearer s3cret", "X-Team": "blue"])
        #expect(config.timeout == .seconds(5) && config.only == ["search"])
        #expect(!"\(config)".contains("s3cret") && "\(config.http.map(String.init(describing:)) ?? "")".contains("Authorization: ***"))
        #expect(try MCPServerConfig(name: "r", json: ["url": "http://127.0.0.1:1/mcp"]).http?.kind == .automatic)
    }

    @Test(arguments: [
        (["url": "http://a/mcp", "command": "x"] as JSONValue, "both 'url' and 'command'"),
        (["url": "ftp://a/mcp"] as JSONValue, "http:// or https://"),
        (["url": "http://a/mcp", "type": "websocket"] as JSONValue, "'type' must be"),
        (["url": "http://a/mcp", "headers": ["X": "${MISSING}"]] as JSONValue, "MISSING"),
        (["url": "http://a/mcp", "headers": ["Bad Name": "x"]] as JSONValue, "not a valid HTTP header"),
        (["url": "http://a/mcp", "env": [:]] as JSONValue, "both 'url' and 'env'"),
    ])
    func aBadURLEntryIsAConfigError(json: JSONValue, expected: String) {
        #expect {
            _ = try MCPServerConfig(name: "r", json: json, variables: [:])
        } throws: { error in
            (error as? LooplError)?.message.contains(expected) == true
        }
    }
}
