import Dispatch
import Foundation
import Loopl
import LooplTestKit
import Synchronization
import Testing

/// Calls of tools set to `ask` wait for the agent's approver, over a scripted model.
@Suite struct AgentApprovalTests {
    static let asking = AgentTests.add.withApproval(.ask)
    static func call(_ id: String) -> ToolCall { ToolCall(id: id, name: "add", arguments: ["a": 2, "b": 3]) }

    /// An approver that answers `decisions` in order (then denies), keeping the calls it was asked about.
    final class Approver: Sendable {
        let asked = Mutex<[ToolCall]>([])
        let decisions: [ApprovalDecision]
        init(_ decisions: [ApprovalDecision]) { self.decisions = decisions }
        var closure: ToolApprover {
            { call in
                self.asked.withLock { asked in
                    asked.append(call)
                    return asked.count <= self.decisions.count ? self.decisions[asked.count - 1] : .deny
                }
            }
        }
    }

    static func results(_ events: [AgentEvent]) -> [ToolResult] {
        events.compactMap { if case .toolFinished(let result) = $0 { result } else { nil } }
    }

    @Test func approvedOnceRuns() async throws {
        let approver = Approver([.once])
        let model = ScriptedModel(turns: [.toolCalls([Self.call("c1")]), .text(["5."])])
        let agent = Agent(model: model, tools: [Self.asking], approver: approver.closure)
        let events = try await AgentTests.collect(agent, "2+3?")
        #expect(approver.asked.withLock { $0 } == [Self.call("c1")])
        let requested = try #require(events.firstIndex(of: .approvalRequested(Self.call("c1"))))
        let answered = try #require(events.firstIndex(of: .approvalAnswered(callId: "c1", decision: .once)))
        let started = try #require(events.firstIndex(of: .toolStarted(Self.call("c1"))))
        #expect(requested < answered && answered < started)
        #expect(Self.results(events).map(\.content) == ["5"])
        #expect(events.last == .finished(iterations: 2, reason: .answered))
    }

    @Test func deniedGivesTheModelTheErrorAndTheRunGoesOn() async throws {
        let approver = Approver([.deny])
        let model = ScriptedModel(turns: [.toolCalls([Self.call("c1")]), .text(["I may not."])])
        let agent = Agent(model: model, tools: [Self.asking], approver: approver.closure)
        let events = try await AgentTests.collect(agent, "2+3?")
        #expect(events.contains(.approvalAnswered(callId: "c1", decision: .deny)))
        #expect(!events.contains { if case .toolStarted = $0 { true } else { false } })
        let result = try #require(Self.results(events).first)
        #expect(result.isError && result.content == "The user denied this call.")
        #expect(events.last == .finished(iterations: 2, reason: .answered))
        let messages = await agent.messages
        AgentTests.expectConsistent(messages)
        #expect(model.requests.last?.messages.last == .tool(result: "The user denied this call.", callId: "c1", name: "add"))
    }

    @Test func approvedForTheRunDoesNotAskAgainUntilTheNextRun() async throws {
        let approver = Approver([.run, .deny])
        let turns: [ScriptedTurn] = [.toolCalls([Self.call("c1"), Self.call("c2")]), .toolCalls([Self.call("c3")]), .text(["Done."])]
        let counter = Mutex(0)
        let model = ScriptedModel { _ in
            counter.withLock { index in
                defer { index += 1 }
                return turns[index % 3]
            }
        }
        let agent = Agent(model: model, tools: [Self.asking], approver: approver.closure)
        let first = try await AgentTests.collect(agent, "add thrice")
        #expect(approver.asked.withLock { $0.map(\.id) } == ["c1"])
        #expect(Self.results(first).map(\.content) == ["5", "5", "5"])
        #expect(first.filter { if case .approvalRequested = $0 { true } else { false } }.count == 1)
        let second = try await AgentTests.collect(agent, "again")
        #expect(approver.asked.withLock { $0.map(\.id) } == ["c1", "c1", "c2", "c3"])
        #expect(Self.results(second).map(\.content) == Array(repeating: "The user denied this call.", count: 3))
    }

    /// "Approve for this run" is for the one tool approved: another tool that asks is still asked about.
    @Test func approvedForTheRunIsForThatToolAlone() async throws {
        let approver = Approver([.run, .deny, .once])
        let echo = FunctionTool(name: "echo", description: "Says the text back.") { $0["text"]?.stringValue ?? "" }
        let say = { (id: String) in ToolCall(id: id, name: "echo", arguments: ["text": "hi"]) }
        let model = ScriptedModel(turns: [.toolCalls([Self.call("c1"), say("e1")]), .toolCalls([Self.call("c2"), say("e2")]), .text(["Done."])])
        let agent = Agent(model: model, tools: [Self.asking, echo.withApproval(.ask)], approver: approver.closure)
        let events = try await AgentTests.collect(agent, "add and echo")
        #expect(approver.asked.withLock { $0.map(\.id) } == ["c1", "e1", "e2"])
        #expect(Self.results(events).map(\.content) == ["5", "The user denied this call.", "5", "hi"])
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingWhileWaitingEndsTheRunCancelled() async throws {
        // An approver that ignores cancellation and answers late, as a person who walked away.
        let agent = Agent(model: ScriptedModel(turns: [.toolCalls([Self.call("c1"), Self.call("c2")]), .text(["never"])]),
                          tools: [Self.asking], approver: { _ in
                              await withCheckedContinuation { answer in
                                  DispatchQueue.global().asyncAfter(deadline: .now() + 30) { answer.resume() }
                              }
                              return .once
                          })
        let events = try await Self.cancelledAtTheFirstApproval(agent)
        #expect(events.last == .finished(iterations: 1, reason: .cancelled))
        #expect(!events.contains { if case .approvalAnswered = $0 { true } else { false } })
        #expect(Self.results(events).map(\.content) == ["Cancelled before it ran.", "Cancelled before it ran."])
        AgentTests.expectConsistent(await agent.messages)
    }

    /// The events of a run of "go" whose consumer cancels once the call `c1` waits for approval.
    static func cancelledAtTheFirstApproval(_ agent: Agent) async throws -> [AgentEvent] {
        let seen = Mutex<[AgentEvent]>([])
        let consumer = Task {
            for try await event in agent.stream("go") { seen.withLock { $0.append(event) } }
        }
        while !seen.withLock({ $0.contains(.approvalRequested(Self.call("c1"))) }) { try await Task.sleep(for: .milliseconds(10)) }
        consumer.cancel()
        _ = await consumer.result
        return seen.withLock { $0 }
    }

    /// A person's answer that waits until it is given, or cancelled.
    final class Parked: Sendable {
        private let state = Mutex<(waiter: CheckedContinuation<Void, Never>?, done: Bool)>((nil, false))
        func wait() async {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if !state.done { state.waiter = continuation }
                    return state.done
                }
                if done { continuation.resume() }
            }
        }
        func release() {
            let waiter = state.withLock { state in
                defer { state = (nil, true) }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// An approver that stops asking when cancelled, and denies at once while its cancellation
    /// handler is still busy, does not decide for the cancelled run.
    @Test(.timeLimit(.minutes(1)))
    func cancellingAnApproverThatHonoursItIsNotADenial() async throws {
        let parked = Parked()
        let agent = Agent(model: ScriptedModel(turns: [.toolCalls([Self.call("c1")]), .text(["never"])]),
                          tools: [Self.asking], approver: { _ in
                              await withTaskCancellationHandler {
                                  await parked.wait()
                              } onCancel: {
                                  parked.release()
                                  usleep(300_000)
                              }
                              return .deny
                          })
        let events = try await Self.cancelledAtTheFirstApproval(agent)
        #expect(events.last == .finished(iterations: 1, reason: .cancelled))
        #expect(Self.results(events).map(\.content) == ["Cancelled before it ran."])
    }

    @Test func aRunNeedingNoApprovalEmitsNeitherEvent() async throws {
        let approver = Approver([])
        let options = AgentOptions(approval: .ask)
        let allowed = AgentTests.add.withApproval(.allow)
        let model = ScriptedModel(turns: [.toolCalls([Self.call("c1")]), .text(["5."])])
        let agent = Agent(model: model, tools: [allowed], options: options, approver: approver.closure)
        let events = try await AgentTests.collect(agent, "2+3?")
        #expect(!events.contains { $0.name.hasPrefix("approval") })
        #expect(approver.asked.withLock { $0 }.isEmpty)
        #expect(Self.results(events).map(\.content) == ["5"])
    }

    @Test func theDefaultAsksForToolsThatDoNotSayAndWithoutAnApproverDenies() async throws {
        let model = ScriptedModel(turns: [.toolCalls([Self.call("c1")]), .text(["ok"])])
        let agent = Agent(model: model, tools: [AgentTests.add], options: AgentOptions(approval: .ask))
        let events = try await AgentTests.collect(agent, "2+3?")
        #expect(events.contains(.approvalRequested(Self.call("c1"))))
        #expect(events.contains(.approvalAnswered(callId: "c1", decision: .deny)))
        #expect(Self.results(events).first?.content == "The user denied this call.")
    }

    @Test func resumedPendingCallsAreAskedAbout() async throws {
        let approver = Approver([.deny])
        let saved: [Message] = [.user("2+3?"), .assistant(text: "", toolCalls: [Self.call("c1")])]
        let agent = Agent(model: ScriptedModel(turns: [.text(["ok"])]), tools: [Self.asking], messages: saved, approver: approver.closure)
        var events: [AgentEvent] = []
        for try await event in agent.resume() { events.append(event) }
        #expect(approver.asked.withLock { $0 } == [Self.call("c1")])
        #expect(Self.results(events).first?.content == "The user denied this call.")
        #expect(await agent.restarted(with: []).approver != nil)
    }
}
