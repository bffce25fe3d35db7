import Foundation
import Glibc
import Loopl
@testable import LooplMCP
import LooplTestKit
import Testing

/// An MCP server is a third party: it sees only the environment it is given, and what it starts
/// ends with it.
@Suite(.serialized) struct MCPIsolationTests {
    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
    }

    /// A server behind `sh -c`, the way `npx` and wrapper scripts start one: the real server and
    /// a helper that ignores its input are the host's grandchildren; neither outlives shutdown.
    @Test(.timeLimit(.minutes(1)))
    func whatAWrappedServerStartsEndsWithIt() async throws {
        let pids = Self.temporary("mcp-pids")
        defer { try? FileManager.default.removeItem(atPath: pids) }
        let script = "sleep 300 </dev/null >/dev/null 2>&1 & echo $! >> \"$MCP_TEST_PIDS\"; python3 \"$0\" legacy; true"
        let client = MCPClient(config: MCPServerConfig(name: "wrapped", command: "/bin/sh",
                                                       arguments: ["-c", script, MCPClientTests.script],
                                                       environment: ["MCP_TEST_PIDS": pids], timeout: .seconds(20)))
        #expect(try await client.call("echo", arguments: ["text": "hi"]) == "hi")
        await client.shutdown()
        let started = (try? String(contentsOfFile: pids, encoding: .utf8))?.split(separator: "\n").compactMap { Int32($0) } ?? []
        #expect(started.count == 2)
        for pid in started { #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(3)), "grandchild \(pid) outlived the client's shutdown") }
    }

    /// The host's secrets stay in the host; the server sees PATH and what its entry sets.
    @Test(.timeLimit(.minutes(1)))
    func theServerSeesNoneOfTheHostsSecrets() async throws {
        let dump = Self.temporary("mcp-env")
        defer { try? FileManager.default.removeItem(atPath: dump) }
        try await withEnvironment(["AWS_SECRET_ACCESS_KEY": "planted-aws-secret", "OPENAI_API_KEY": "planted-openai-key"]) { () async throws in
            let client = MCPClient(config: MCPServerConfig(name: "env", command: "python3", arguments: [MCPClientTests.script, "legacy"],
                                                           environment: ["MCP_TEST_ENV": dump], timeout: .seconds(20)))
            #expect(try await client.call("echo", arguments: ["text": "hi"]) == "hi")
            await client.shutdown()
        }
        let seen = try JSONValue(parsing: String(contentsOfFile: dump, encoding: .utf8))
        #expect(seen["AWS_SECRET_ACCESS_KEY"] == nil)
        #expect(seen["OPENAI_API_KEY"] == nil)
        // A Python launcher may put its own folders in front.
        #expect(seen["PATH"]?.stringValue?.hasSuffix(ProcessInfo.processInfo.environment["PATH"] ?? "-") == true)
        #expect(seen["MCP_TEST_ENV"]?.stringValue == dump)
    }

    /// `inheritEnv` passes a host variable on by name; the rest stay behind.
    @Test(.timeLimit(.minutes(1)))
    func inheritEnvPassesANamedHostVariable() async throws {
        let dump = Self.temporary("mcp-env")
        defer { try? FileManager.default.removeItem(atPath: dump) }
        let config = try MCPServerConfig(name: "env", json: [
            "command": "python3", "args": [.string(MCPClientTests.script), "legacy"],
            "env": ["MCP_TEST_ENV": .string(dump)], "inheritEnv": ["LOOPL_TEST_INHERITED"]])
        try await withEnvironment(["LOOPL_TEST_INHERITED": "inherited", "LOOPL_TEST_NOT_NAMED": "left behind"]) { () async throws in
            let client = MCPClient(config: config)
            #expect(try await client.call("echo", arguments: ["text": "hi"]) == "hi")
            await client.shutdown()
        }
        let seen = try JSONValue(parsing: String(contentsOfFile: dump, encoding: .utf8))
        #expect(seen["LOOPL_TEST_INHERITED"]?.stringValue == "inherited")
        #expect(seen["LOOPL_TEST_NOT_NAMED"] == nil)
        #expect(seen["MCP_TEST_ENV"]?.stringValue == dump)
    }

    /// `${VAR}` in `args` lands in /proc/PID/cmdline; the entry says so, and `env` does not.
    @Test func aVariableInArgsIsWarnedAbout() throws {
        let inArgs = try MCPServerConfig(name: "leaky", json: ["command": "server", "args": ["--token", "${TOKEN}"]],
                                         variables: ["TOKEN": "tok-4711"])
        #expect(inArgs.arguments == ["--token", "tok-4711"])
        #expect(inArgs.warnings.count == 1)
        #expect(inArgs.warnings.first?.contains("${TOKEN}") == true)
        #expect(inArgs.warnings.first?.contains("tok-4711") == false)
        let inEnv = try MCPServerConfig(name: "careful", json: ["command": "server", "env": ["TOKEN": "${TOKEN}"]],
                                        variables: ["TOKEN": "tok-4711"])
        #expect(inEnv.warnings.isEmpty)
    }

    /// The warning reaches the user through the hub's warnings, once per entry.
    @Test(.timeLimit(.minutes(1)))
    func theHubPassesTheWarningOn() async throws {
        let config = try MCPServerConfig(name: "leaky", json: ["command": "/nonexistent/server", "args": ["${TOKEN}"]],
                                         variables: ["TOKEN": "tok-4711"])
        let hub = MCPHub(configs: [config])
        let started = await hub.start(hub.clients)
        await hub.shutdown()
        #expect(started.warnings.filter { $0.contains("${VAR} in 'args'") }.count == 1)
    }
}
