import Foundation
@testable import Loopl
import LooplTestKit
import Synchronization
import Testing

/// A model whose engine is lost mid-turn (after some text and a call) on the requests that
/// `lose` picks by their 0-based index, and that answers like `base` on the others; `live` makes
/// the failure an error of a live engine instead.
final class LosingModel: Model {
    let base: ScriptedModel
    let lose: @Sendable (Int) -> Bool
    let live: Bool
    let requests = Mutex(0)

    convenience init(losses: Int, live: Bool = false, base: ScriptedModel) {
        self.init(live: live, base: base) { $0 < losses }
    }

    init(live: Bool = false, base: ScriptedModel, lose: @escaping @Sendable (Int) -> Bool) {
        self.base = base
        self.lose = lose
        self.live = live
    }

    var contextSize: Int { get async throws { try await base.contextSize } }
    func close() async { await base.close() }

    func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        let index = requests.withLock { count in
            defer { count += 1 }
            return count
        }
        guard lose(index) else { return base.generate(messages: messages, tools: tools, options: options) }
        let live = self.live
        return AsyncThrowingStream { continuation in
            continuation.yield(.text("half an ans"))
            continuation.yield(.toolCall(ToolCall(name: "count", arguments: [:])))
            continuation.finish(throwing: live
                ? LooplError(.contextOverflow, "The prompt does not fit.")
                : LooplError(.processFailed, "The worker exited with status 9 mid-stream. Its last lines on stderr:\n  boom", engineLoss: .restarting))
        }
    }
}

/// Counts its calls.
final class CountingTool: Tool {
    let calls = Mutex(0)
    let name = "count"
    let description = "Counts its calls."
    var parameters: JSONValue { ["type": "object", "properties": [:]] }
    func call(_ arguments: JSONObject) async throws -> String {
        "call \(calls.withLock { $0 += 1; return $0 })"
    }
}

@Suite struct AgentRetryTests {
    static func collect(_ agent: Agent, _ prompt: String?) async -> (events: [AgentEvent], error: (any Error)?) {
        var events: [AgentEvent] = []
        do {
            for try await event in prompt.map({ agent.stream($0) }) ?? agent.resume() { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    static func retries(_ events: [AgentEvent]) -> [AgentEvent] {
        events.filter { if case .retrying = $0 { true } else { false } }
    }

    @Test func aLostEngineCostsOneRetriedTurn() async throws {
        let model = LosingModel(losses: 1, base: ScriptedModel(turns: [.text(["The ", "answer."])]))
        let tool = CountingTool()
        let agent = Agent(model: model, tools: [tool])
        let (events, error) = await Self.collect(agent, "Hi")
        #expect(error == nil)
        #expect(Self.retries(events) == [.retrying(iteration: 1, reason: "The worker exited with status 9 mid-stream.")])
        #expect(await agent.messages == [.user("Hi"), .assistant("The answer.")])
        #expect(events.last == .finished(iterations: 1, reason: .answered))
        #expect(tool.calls.withLock { $0 } == 0, "a call of the lost turn ran")
        #expect(model.requests.withLock { $0 } == 2)
    }

    @Test func aSecondLossEndsTheRunAndKeepsTheCompleteTurns() async throws {
        let call = ToolCall(id: "c1", name: "count", arguments: [:])
        let model = LosingModel(base: ScriptedModel(turns: [.toolCalls([call])])) { $0 > 0 }
        let agent = Agent(model: model, tools: [CountingTool()])
        let (events, error) = await Self.collect(agent, "Go")
        #expect((error as? LooplError)?.isEngineLoss == true, "\(String(describing: error))")
        #expect(Self.retries(events) == [.retrying(iteration: 2, reason: "The worker exited with status 9 mid-stream.")])
        #expect(await agent.messages == [.user("Go"), .assistant(text: "", toolCalls: [call]),
                                         .tool(result: "call 1", callId: "c1", name: "count")])
        #expect(model.requests.withLock { $0 } == 3)
    }

    @Test func errorsOfALiveEngineAreNotRetried() async throws {
        let model = LosingModel(losses: 1, live: true, base: ScriptedModel(turns: [.text(["fine"])]))
        let (events, error) = await Self.collect(Agent(model: model), "Hi")
        #expect((error as? LooplError)?.code == .contextOverflow)
        #expect(Self.retries(events).isEmpty)
        #expect(model.requests.withLock { $0 } == 1)
    }

    @Test func zeroRetriesTurnsItOff() async throws {
        let model = LosingModel(losses: 1, base: ScriptedModel(turns: [.text(["fine"])]))
        let agent = Agent(model: model, options: AgentOptions(turnRetries: 0))
        let (events, error) = await Self.collect(agent, "Hi")
        #expect((error as? LooplError)?.code == .processFailed)
        #expect(Self.retries(events).isEmpty)
        #expect(await agent.messages == [.user("Hi")])
    }

    @Test func resumeRunsThePendingCallsThenTheModel() async throws {
        let call = ToolCall(id: "c1", name: "count", arguments: [:])
        let other = ToolCall(id: "c2", name: "count", arguments: ["n": 2])
        let tool = CountingTool()
        let saved: [Message] = [.user("Go"), .assistant(text: "", toolCalls: [call, other]), .tool(result: "call 0", callId: "c1", name: "count")]
        let model = ScriptedModel(turns: [.text(["Done."])])
        let agent = Agent(model: model, tools: [tool], messages: saved)
        #expect(await agent.isInterrupted)
        let (events, error) = await Self.collect(agent, nil)
        #expect(error == nil)
        #expect(tool.calls.withLock { $0 } == 1, "only the call without a result runs")
        #expect(await agent.messages == saved + [.tool(result: "call 1", callId: "c2", name: "count"), .assistant("Done.")])
        #expect(events.last == .finished(iterations: 1, reason: .answered))
        #expect(model.requests.first?.options.toolChoice == .auto)
    }

    @Test func resumeAfterAToolResultOrAUserMessageAsksTheModel() async throws {
        for saved: [Message] in [[.user("Hi")], [.user("Go"), .assistant(text: "", toolCalls: [ToolCall(id: "c", name: "count")]),
                                                .tool(result: "1", callId: "c", name: "count")]] {
            let agent = Agent(model: ScriptedModel(turns: [.text(["ok"])]), messages: saved)
            let (_, error) = await Self.collect(agent, nil)
            #expect(error == nil)
            #expect(await agent.messages == saved + [.assistant("ok")])
        }
    }

    @Test func resumeOnAFinishedRunDoesNothing() async throws {
        let model = ScriptedModel(turns: [.text(["again"])])
        let agent = Agent(model: model, messages: [.user("Hi"), .assistant("Hello.")])
        #expect(await !agent.isInterrupted)
        let (events, _) = await Self.collect(agent, nil)
        #expect(events == [.finished(iterations: 0, reason: .answered)])
        #expect(model.requests.isEmpty)
    }

    /// The default route moves to its fallback when a turn's retry lost its engine too.
    @Test func aFailedRetryMovesToTheFallback() async throws {
        let kind = BackendKind(name: "losing", read: { section in try section.string("name") }, start: { name -> any Model in
            name == "a" ? LosingModel(losses: 99, base: ScriptedModel(turns: [.text(["from a"])]))
                        : ScriptedModel(turns: [.text(["from ", "b"])])
        })
        let config = try LooplConfig(json: #"{"default": "a", "fallback": ["b"], "backends": {"a": {"kind": "losing", "name": "a"}, "b": {"kind": "losing", "name": "b"}}}"#,
                                     kinds: [kind])
        let warnings = Mutex<[String]>([])
        let model = try await Router(config: config).model(named: nil) { w in warnings.withLock { $0.append(w) } }
        let agent = Agent(model: model)
        let (events, error) = await Self.collect(agent, "Hi")
        #expect(error == nil)
        #expect(Self.retries(events).count == 2)
        #expect(await agent.messages == [.user("Hi"), .assistant("from b")])
        #expect(warnings.withLock { $0 }.contains { $0.contains("Falling back to backend 'b'") })
        var transcript = Transcript()
        transcript.user("Hi")
        for event in events { transcript.apply(event) }
        #expect(transcript.items.filter { if case .assistant = $0 { true } else { false } } == [.assistant("from b")])
    }
}

