import Foundation
import Loopl
@testable import LooplServer
import LooplTestKit
import Testing

/// An agent on a real child llama-server that is killed with SIGKILL mid-stream: the server is
/// started again and the turn retried, once.
@Suite(.serialized) struct ServerRetryTests {
    /// Runs an agent turn on `model` and sends `signal` to its child at the first text; the
    /// child's pid, the events and the conversation.
    static func run(_ model: LlamaServerModel, signalling signal: Int32) async throws -> (Int32, [AgentEvent], [Message]) {
        let agent = Agent(model: model, options: AgentOptions(generation: .greedy(maxTokens: 16)))
        let first = try #require(await model.serverProcessID)
        var events: [AgentEvent] = []
        do {
            for try await event in agent.stream("Tell me about lighthouses.") {
                events.append(event)
                if case .text = event, await model.serverProcessID == first, ProcessWatch.isRunning(first) {
                    kill(first, signal)
                }
            }
        } catch {
            Issue.record("the run failed: \(error)")
        }
        return (first, events, await agent.messages)
    }

    @Test(.timeLimit(.minutes(5)))
    func aServerKilledMidStreamCostsOneRetriedTurn() async throws {
        let model = try await LlamaServerModel.start(.init(contextLength: 1024, threads: 2))
        let (first, events, messages) = try await Self.run(model, signalling: SIGKILL)
        let retries = events.compactMap { if case .retrying(let n, let reason) = $0 { (n, reason) } else { nil } }
        #expect(retries.count == 1)
        #expect(retries.first?.0 == 1)
        #expect(retries.first?.1.contains("signal 9") == true, "\(retries)")
        guard case .finished(1, .answered)? = events.last else {
            Issue.record("the run did not answer: \(events.suffix(3))")
            await model.close()
            return
        }
        let retryIndex = try #require(events.firstIndex { if case .retrying = $0 { true } else { false } })
        let after = events[retryIndex...].compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
        let answer = try #require(messages.last)
        #expect(answer == .assistant(after))
        #expect(!after.isEmpty)
        #expect(await model.serverProcessID != first)
        #expect(!ProcessWatch.isRunning(first))
        await model.close()
    }

    /// A child that stops answering mid-stream (SIGSTOP) is stopped after the idle timeout, and
    /// the turn is retried on a new one.
    @Test(.timeLimit(.minutes(5)))
    func aStalledServerIsStoppedAndTheTurnRetried() async throws {
        let model = try await LlamaServerModel.start(.init(contextLength: 1024, threads: 2, idleTimeout: .seconds(3)))
        let (first, events, _) = try await Self.run(model, signalling: SIGSTOP)
        kill(first, SIGKILL)
        let retries = events.compactMap { if case .retrying(_, let reason) = $0 { reason } else { nil } }
        #expect(retries.count == 1)
        #expect(retries.first?.contains("stalled llama-server was stopped") == true, "\(retries)")
        #expect(events.last == .finished(iterations: 1, reason: .answered))
        #expect(await model.serverProcessID != first)
        await model.close()
    }
}
