import Loopl
@testable import LooplMCP
import LooplTestKit
import Synchronization
import Testing

/// A server's changed tool list reaches an agent between iterations.
@Suite struct MCPToolSourceTests {
    @Test func aToolAddedDuringARunIsOfferedAndRunsOnTheNextTurn() async throws {
        let hub = MCPHub(configs: [MCPServerConfig(name: "test", command: "python3", arguments: [MCPClientTests.script, "legacy"],
                                                   timeout: .seconds(20))])
        let started = await hub.start(try hub.select(["all"]))
        #expect(!started.tools.contains { $0.name == "test_added" })
        let offered = Mutex<[[String]]>([])
        let model = ScriptedModel() { request in
            let names = request.tools.map(\.name)
            let turn = offered.withLock { list in
                list.append(names)
                return list.count
            }
            switch turn {
            case 1: return .toolCalls([ToolCall(name: "test_change")])  // the server adds "added" and says so
            case 2: return .toolCalls([ToolCall(name: "test_added")])
            default: return .text(["done"])
            }
        }
        let agent = Agent(model: model, toolSources: [started.source])
        var results: [ToolResult] = []
        for try await event in agent.stream("go") {
            if case .toolFinished(let result) = event { results.append(result) }
        }
        await hub.shutdown()
        #expect(results.map(\.content) == ["changed", "added works"], "\(results)")
        #expect(results.allSatisfy { !$0.isError })
        let lists = offered.withLock { $0 }
        #expect(lists.count == 3 && !lists[0].contains("test_added") && lists[1].contains("test_added"), "\(lists)")
    }
}
