import Foundation
import Loopl
@testable import LooplStdio
import LooplTestKit
import Testing

/// An agent over a worker that dies mid-turn: the turn is retried once on a new worker.
@Suite(.serialized) struct RetryTests {
    static func start(_ arguments: [String]) async throws -> StdioModel {
        try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python(arguments), initializeTimeout: .seconds(20),
                                                            idleTimeout: .seconds(10)))
    }

    static func run(_ agent: Agent, _ prompt: String) async -> (events: [AgentEvent], error: (any Error)?) {
        var events: [AgentEvent] = []
        do {
            for try await event in agent.stream(prompt) { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    static func retries(_ events: [AgentEvent]) -> [AgentEvent] {
        events.filter { if case .retrying = $0 { true } else { false } }
    }

    @Test(.timeLimit(.minutes(1)))
    func aWorkerThatCrashesOnceCostsOneRetriedTurn() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start(["--fault", "crash", "--fault-after", "3", "--fault-once", marker])
        let first = model.workerPID
        let agent = Agent(model: model)
        let (events, error) = await Self.run(agent, "Hello")
        #expect(error == nil, "\(String(describing: error))")
        let retries = Self.retries(events)
        #expect(retries.count == 1)
        if case .retrying(let iteration, let reason)? = retries.first {
            #expect(iteration == 1)
            #expect(reason.contains("exited with status 7 mid-stream"), "\(reason)")
        }
        let answer = "Hello! How can I help you today?"
        #expect(await agent.messages == [.user("Hello"), .assistant(answer)])
        let retryIndex = try #require(events.firstIndex { if case .retrying = $0 { true } else { false } })
        let before = events[..<retryIndex].compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
        let after = events[retryIndex...].compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
        #expect(!before.isEmpty && answer.hasPrefix(before), "the lost turn streamed \(before.debugDescription)")
        #expect(after == answer)
        #expect(events.last == .finished(iterations: 1, reason: .answered))
        #expect(model.workerPID != first)
        await model.close()
    }

    /// Two conversations on one worker, both in flight: its crash costs each turn one retry,
    /// and both are answered by the new worker.
    @Test(.timeLimit(.minutes(1)))
    func twoConversationsOnOneWorkerEachRetryOnce() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start(["--fault", "crash", "--fault-after", "3", "--fault-once", marker])
        async let first = Self.run(Agent(model: model), "Hello")
        async let second = Self.run(Agent(model: model), "Hello")
        let runs = await [first, second]
        #expect(runs.allSatisfy { $0.error == nil }, "\(runs.map { String(describing: $0.error) })")
        #expect(runs.map { Self.retries($0.events).count } == [1, 1])
        #expect(runs.allSatisfy { $0.events.last == .finished(iterations: 1, reason: .answered) })
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aWorkerThatAlwaysCrashesIsRetriedOnceAndTheCompleteTurnsStay() async throws {
        let model = try await Self.start(["--fault", "crash"])
        let earlier: [Message] = [.user("Hi"), .assistant("Hello.")]
        let agent = Agent(model: model, messages: earlier)
        let (events, error) = await Self.run(agent, "Again")
        let lost = try #require(error as? LooplError, "\(String(describing: error))")
        #expect(lost.code == .processFailed)
        #expect(lost.isEngineLoss)
        #expect(Self.retries(events).count == 1)
        #expect(await agent.messages == earlier + [.user("Again")])
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aStalledWorkerIsStoppedAndTheTurnRetried() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--fault", "stall", "--fault-once", marker]), initializeTimeout: .seconds(20), idleTimeout: .seconds(2)))
        let agent = Agent(model: model)
        let (events, error) = await Self.run(agent, "Hello")
        #expect(error == nil, "\(String(describing: error))")
        #expect(Self.retries(events).count == 1)
        #expect(await agent.messages.last == .assistant("Hello! How can I help you today?"))
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aProtocolViolationIsNotRetried() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start(["--fault", "non-json", "--fault-once", marker])
        let (events, error) = await Self.run(Agent(model: model), "Hello")
        #expect((error as? LooplError)?.code == .protocolViolation)
        #expect(Self.retries(events).isEmpty)
        await model.close()
    }

    /// The worker is killed while a tool runs, between two iterations: the next iteration starts
    /// a new one, and the run answers.
    @Test(.timeLimit(.minutes(1)))
    func aWorkerKilledBetweenIterationsIsRestartedByTheNext() async throws {
        let script = Fixtures.packageRoot.appendingPathComponent("backends/python/script.json").path
        let model = try await Self.start(["--script", script])
        let first = try #require(model.workerPID)
        let agent = Agent(model: model, tools: [CalculatorTool()], options: AgentOptions(maxIterations: 6))
        var events: [AgentEvent] = []
        for try await event in agent.stream("What is 17*23?") {
            events.append(event)
            if case .toolStarted = event, model.workerPID == first {
                kill(first, SIGKILL)
                #expect(await ProcessWatch.waitUntilGone(first, timeout: .seconds(5)))
            }
        }
        #expect(events.contains { if case .toolFinished(let result) = $0 { result.content == "391" } else { false } })
        guard case .finished(_, .answered)? = events.last else {
            Issue.record("the run did not answer: \(events)")
            return
        }
        #expect(model.workerPID != first)
        await model.close()
    }
}
