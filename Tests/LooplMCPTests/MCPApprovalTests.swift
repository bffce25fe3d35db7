import Loopl
@testable import LooplMCP
import LooplTestKit
import Synchronization
import Testing

/// `approval` on an MCP server's entry, and per tool in its `toolApproval`.
@Suite struct MCPApprovalTests {
    @Test func readsTheServerAndToolApprovals() throws {
        let json = try JSONValue(parsing: #"{"command": "srv", "approval": "ask", "toolApproval": {"echo": "allow"}}"#)
        let config = try MCPServerConfig(name: "s", json: json, variables: [:])
        #expect(config.approval == .ask)
        #expect(config.approval(of: "echo") == .allow)
        #expect(config.approval(of: "fail") == .ask)
        let plain = try MCPServerConfig(name: "s", json: ["command": "srv"], variables: [:])
        #expect(plain.approval == nil && plain.approval(of: "echo") == nil)
    }

    @Test func rejectsApprovalsThatAreNotAskOrAllow() throws {
        func problem(_ text: String) -> String? {
            do {
                _ = try MCPServerConfig(name: "s", json: try JSONValue(parsing: text), variables: [:])
                return nil
            } catch {
                return (error as? LooplError)?.message ?? "\(error)"
            }
        }
        #expect(problem(#"{"command": "x", "approval": "never"}"#) == #"Invalid configuration: MCP server 's': 'approval' must be "ask" or "allow"."#)
        #expect(problem(#"{"command": "x", "toolApproval": {"echo": true}}"#) == #"Invalid configuration: MCP server 's': 'toolApproval.echo' must be "ask" or "allow"."#)
        #expect(problem(#"{"command": "x", "toolApproval": ["echo"]}"#)?.contains("'toolApproval' must be an object") == true)
    }

    /// A server set to ask, with one tool set to allow: only the other tool's call is asked about.
    @Test(.timeLimit(.minutes(1)))
    func aServerSetToAskAsksOnlyForTheToolsNotAllowed() async throws {
        var config = MCPServerConfig(name: "test", command: "python3", arguments: [MCPClientTests.script], timeout: .seconds(20))
        config.approval = .ask
        config.toolApproval = ["echo": .allow, "missing": .ask]
        let hub = MCPHub(configs: [config])
        let started = await hub.start(try hub.select(["all"]))
        #expect(started.warnings.contains("MCP server 'test': its config names tool 'missing', which the server does not offer."), "\(started.warnings)")
        let echo = ToolCall(id: "c1", name: "test_echo", arguments: ["text": "hi"])
        let structured = ToolCall(id: "c2", name: "test_structured")
        let model = ScriptedModel(turns: [.toolCalls([echo, structured]), .text(["done"])])
        let asked = Mutex<[String]>([])
        let agent = Agent(model: model, toolSources: [started.source], approver: { call in
            asked.withLock { $0.append(call.name) }
            return .deny
        })
        var results: [ToolResult] = []
        for try await event in agent.stream("go") {
            if case .toolFinished(let result) = event { results.append(result) }
        }
        await hub.shutdown()
        #expect(asked.withLock { $0 } == ["test_structured"])
        #expect(results.map(\.isError) == [false, true], "\(results)")
        #expect(results.last?.content == "The user denied this call.")
    }
}
