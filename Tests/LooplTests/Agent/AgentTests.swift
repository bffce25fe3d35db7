import Loopl
import LooplTestKit
import Synchronization
import Testing

/// The agent loop over scripted models, with calls as events and as Hermes markup they lift.
@Suite struct AgentTests {
    static let styles: [ToolCallFormat?] = [nil, .hermes]

    static let add = FunctionTool(name: "add", description: "Adds two integers.",
                                  parameters: ["type": "object",
                                               "properties": ["a": ["type": "integer"], "b": ["type": "integer"]],
                                               "required": ["a", "b"]]) { arguments in
        String((arguments["a"]?.intValue ?? 0) + (arguments["b"]?.intValue ?? 0))
    }
    static let fails = FunctionTool(name: "fails", description: "Always throws.") { _ in
        throw LooplError(.invalidRequest, "the disk is full")
    }
    static let slow = FunctionTool(name: "slow", description: "Never finishes in time.") { _ in
        try await Task.sleep(for: .seconds(60))
        return "late"
    }
    static let stubborn = FunctionTool(name: "stubborn", description: "Ignores cancellation.") { _ in
        let until = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < until { try? await Task.sleep(for: .milliseconds(20)) }
        return "done anyway"
    }

    static func turn(_ calls: [ToolCall], style: ToolCallFormat?, before: String = "") -> ScriptedTurn {
        if style != nil { return .toolCallText(calls, before: before) }
        return ScriptedTurn((before.isEmpty ? [] : [.text(before)]) + calls.map(ScriptedTurn.Step.toolCall))
    }

    static func collect(_ agent: Agent, _ text: String) async throws -> [AgentEvent] {
        var events: [AgentEvent] = []
        for try await event in agent.stream(text) { events.append(event) }
        return events
    }

    /// Every assistant call is followed by exactly one result, in order.
    static func expectConsistent(_ messages: [Message], sourceLocation: SourceLocation = #_sourceLocation) {
        var open: [String] = []
        for message in messages {
            switch message {
            case .assistant(_, let calls, _):
                #expect(open.isEmpty, "a new turn began with calls unanswered", sourceLocation: sourceLocation)
                open = calls.map(\.id)
            case .tool(_, let callId, _):
                #expect(open.first == callId, "result \(callId) out of order", sourceLocation: sourceLocation)
                if !open.isEmpty { open.removeFirst() }
            default:
                #expect(open.isEmpty, "calls left without results", sourceLocation: sourceLocation)
            }
        }
        #expect(open.isEmpty, "calls left without results", sourceLocation: sourceLocation)
    }

    @Test(arguments: styles)
    func plainAnswer(_ style: ToolCallFormat?) async throws {
        let model = ScriptedModel(markup: style, turns: [.text(["Hi", " there."])])
        let agent = Agent(model: model, tools: [Self.add])
        let events = try await Self.collect(agent, "hello")
        #expect(events.first == .iterationStarted(1))
        #expect(events.contains(.text("Hi")) || events.contains(.text("Hi there.")))
        #expect(events.last == .finished(iterations: 1, reason: .answered))
        #expect(await agent.messages == [.user("hello"), .assistant("Hi there.")])
    }

    @Test(arguments: styles)
    func oneCallThenAnswer(_ style: ToolCallFormat?) async throws {
        let call = ToolCall(id: "call_1", name: "add", arguments: ["a": 17, "b": 25])
        let model = ScriptedModel(markup: style, turns: [Self.turn([call], style: style, before: "Let me add."), .text(["42."])])
        let agent = Agent(model: model, tools: [Self.add])
        let events = try await Self.collect(agent, "17+25?")
        let finished = events.compactMap { if case .toolFinished(let r) = $0 { r } else { nil } }
        #expect(finished.count == 1)
        #expect(finished.first?.content == "42")
        #expect(finished.first?.isError == false)
        #expect(events.last == .finished(iterations: 2, reason: .answered))
        let visible = events.compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
        #expect(!visible.contains("<tool_call>"), "markup reached the text: \(visible)")
        #expect(visible.hasPrefix("Let me add."))
        let messages = await agent.messages
        Self.expectConsistent(messages)
        #expect(messages.count == 4)
        // The second request saw the result.
        #expect(model.requests.last?.messages.last == .tool(result: "42", callId: messages[1].toolCalls.first?.id ?? "", name: "add"))
    }

    @Test(arguments: styles)
    func parallelCallsRunAndAnswerInOrder(_ style: ToolCallFormat?) async throws {
        let calls = [ToolCall(id: "c1", name: "add", arguments: ["a": 1, "b": 2]),
                     ToolCall(id: "c2", name: "add", arguments: ["a": 3, "b": 4])]
        let agent = Agent(model: ScriptedModel(markup: style, turns: [Self.turn(calls, style: style), .text(["3 and 7"])]), tools: [Self.add])
        let events = try await Self.collect(agent, "go")
        let results = events.compactMap { if case .toolFinished(let r) = $0 { r.content } else { nil } }
        #expect(results == ["3", "7"])
        Self.expectConsistent(await agent.messages)
    }

    @Test(arguments: styles)
    func unknownToolIsAnErrorResultAndAWarning(_ style: ToolCallFormat?) async throws {
        let call = ToolCall(id: "c1", name: "launch_rockets", arguments: [:])
        let agent = Agent(model: ScriptedModel(markup: style, turns: [Self.turn([call], style: style), .text(["ok"])]), tools: [Self.add])
        let events = try await Self.collect(agent, "go")
        let result = try #require(events.compactMap { if case .toolFinished(let r) = $0 { r } else { nil } }.first)
        #expect(result.isError)
        #expect(result.content.contains("no tool named launch_rockets"))
        #expect(events.contains { if case .warning(let w) = $0 { w.contains("launch_rockets") } else { false } })
        #expect(events.last == .finished(iterations: 2, reason: .answered))
        Self.expectConsistent(await agent.messages)
    }

    @Test(arguments: styles)
    func invalidArgumentsThrowingAndTimeoutAreErrorResults(_ style: ToolCallFormat?) async throws {
        let calls = [ToolCall(id: "c1", name: "add", arguments: ["a": "one"]),
                     ToolCall(id: "c2", name: "fails", arguments: [:]),
                     ToolCall(id: "c3", name: "slow", arguments: [:])]
        var options = AgentOptions()
        options.toolTimeout = .milliseconds(200)
        let agent = Agent(model: ScriptedModel(markup: style, turns: [Self.turn(calls, style: style), .text(["sorry"])]),
                          tools: [Self.add, Self.fails, Self.slow], options: options)
        let events = try await Self.collect(agent, "go")
        let results = events.compactMap { if case .toolFinished(let r) = $0 { r } else { nil } }
        #expect(results.map(\.isError) == [true, true, true])
        #expect(results[0].content.contains("required argument 'b'") || results[0].content.contains("'a' should be integer"))
        #expect(results[1].content.contains("the disk is full"))
        #expect(results[2].content.contains("did not finish"))
        #expect(events.last == .finished(iterations: 2, reason: .answered))
        Self.expectConsistent(await agent.messages)
    }

    @Test func budgetEndsTheRun() async throws {
        let call = ToolCall(name: "add", arguments: ["a": 1, "b": 1])
        var options = AgentOptions()
        options.maxIterations = 3
        let agent = Agent(model: ScriptedModel(turns: [.toolCalls([call])]), tools: [Self.add], options: options)
        let events = try await Self.collect(agent, "loop forever")
        #expect(events.last == .finished(iterations: 3, reason: .budget))
        // The third identical call is flagged, once.
        let warnings = events.filter { if case .warning(let w) = $0 { w.contains("same arguments") } else { false } }
        #expect(warnings.count == 1)
        Self.expectConsistent(await agent.messages)
    }

    @Test func firstIterationToolChoiceOnly() async throws {
        let call = ToolCall(name: "add", arguments: ["a": 1, "b": 1])
        let model = ScriptedModel(turns: [.toolCalls([call]), .text(["2"])])
        var options = AgentOptions()
        options.firstToolChoice = .required
        let agent = Agent(model: model, tools: [Self.add], options: options)
        _ = try await Self.collect(agent, "1+1")
        #expect(model.requests.map(\.options.toolChoice) == [.required, .auto])
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingMidToolFinishesCancelledAndConsistent() async throws {
        let calls = [ToolCall(id: "c1", name: "stubborn", arguments: [:]), ToolCall(id: "c2", name: "add", arguments: ["a": 1, "b": 2])]
        let agent = Agent(model: ScriptedModel(turns: [.toolCalls(calls), .text(["never"])]), tools: [Self.stubborn, Self.add])
        let seen = Mutex<[AgentEvent]>([])
        let consumer = Task {
            for try await event in agent.stream("go") { seen.withLock { $0.append(event) } }
        }
        while !seen.withLock({ $0.contains(.toolStarted(calls[0])) }) { try await Task.sleep(for: .milliseconds(10)) }
        let start = ContinuousClock.now
        consumer.cancel()
        _ = await consumer.result
        #expect(ContinuousClock.now - start < .seconds(2), "cancellation waited for a tool that ignores it")
        #expect(seen.withLock { $0.last } == .finished(iterations: 1, reason: .cancelled))
        let messages = await agent.messages
        Self.expectConsistent(messages)
        #expect(messages.count == 4)
    }

    @Test(.timeLimit(.minutes(1)), arguments: styles)
    func cancellingMidStreamFinishesCancelled(_ style: ToolCallFormat?) async throws {
        let model = ScriptedModel(markup: style, delay: .milliseconds(20)) { _ in .text(Array(repeating: "word ", count: 500)) }
        let agent = Agent(model: model)
        let seen = Mutex<[AgentEvent]>([])
        let consumer = Task {
            for try await event in agent.stream("talk") { seen.withLock { $0.append(event) } }
        }
        while seen.withLock({ $0.count < 3 }) { try await Task.sleep(for: .milliseconds(10)) }
        consumer.cancel()
        _ = await consumer.result
        #expect(seen.withLock { $0.last } == .finished(iterations: 1, reason: .cancelled))
        let messages = await agent.messages
        #expect(messages.first == .user("talk"))
        Self.expectConsistent(messages)
    }

    @Test func modelErrorsEndTheSequence() async throws {
        let model = ScriptedModel(contextSize: 16) { _ in .text(["x"]) }
        let agent = Agent(model: model)
        let error = await #expect(throws: LooplError.self) {
            _ = try await Self.collect(agent, String(repeating: "long prompt ", count: 100))
        }
        #expect(error?.code == .contextOverflow, "\(String(describing: error))")
    }
}
