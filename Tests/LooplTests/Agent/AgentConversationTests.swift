import Loopl
import LooplTestKit
import Testing

/// One Agent is one conversation: a second run while one goes on is refused, and every request
/// names the Agent's conversation; Agents on one model run side by side.
@Suite struct AgentConversationTests {
    @Test func aSecondStreamWhileOneRunsIsRefused() async throws {
        let model = ScriptedModel.conformant(delay: .milliseconds(20), parallel: 2)
        let agent = Agent(model: model)
        let first = agent.stream("Hello")
        var firstEvents = first.makeAsyncIterator()
        _ = try await firstEvents.next()  // the run has begun
        do {
            for try await _ in agent.stream("Again") {}
            Issue.record("a second stream on a running Agent was served")
        } catch let error as LooplError {
            #expect(error.code == .agentBusy)
        }
        while try await firstEvents.next() != nil {}
        let after = try await AgentTests.collect(agent, "Once more")
        #expect(after.contains { if case .finished(_, .answered) = $0 { true } else { false } })
        #expect(await agent.messages.filter { $0.role == "user" }.map(\.text) == ["Hello", "Once more"])
    }

    @Test func requestsNameTheAgentsConversation() async throws {
        let model = ScriptedModel.conformant(parallel: 2)
        let a = Agent(model: model)
        let b = Agent(model: model)
        async let ea = AgentTests.collect(a, "one")
        async let eb = AgentTests.collect(b, "two")
        _ = try await (ea, eb)
        _ = try await AgentTests.collect(a, "three")
        let names = model.requests.map { $0.options.conversation }
        #expect(names.allSatisfy { $0 != nil })
        let byPrompt = Dictionary(model.requests.map { ($0.messages.last?.text ?? "", $0.options.conversation) }, uniquingKeysWith: { x, _ in x })
        #expect(byPrompt["one"] == byPrompt["three"])
        #expect(byPrompt["one"] != byPrompt["two"])
    }
}
