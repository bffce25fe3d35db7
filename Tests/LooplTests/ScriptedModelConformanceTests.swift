import Loopl
import LooplTestKit
import Testing

@Suite struct ScriptedModelConformanceTests {
    @Test(arguments: [nil, ToolCallFormat.hermes])
    func scriptedModelPassesTheSuite(_ markup: ToolCallFormat?) async throws {
        try await ModelConformance(model: ScriptedModel.conformant(markup: markup)).runAll()
    }

    /// Each defect is caught by the check that exists for it, with the suite's default bounds: a
    /// model that ignores cancellation at 10 ms a token would finish its 400 tokens in 4 s.
    @Test(arguments: [
        (ScriptedModel.Fault.ignoresMaxTokens, "max tokens"),
        (.ignoresStop, "stop string"),
        (.omitsFinalMetrics, "plain answer"),
        (.ignoresCancellation, "cancellation"),
        (.ignoresContextSize, "context overflow"),
        (.callsWrongTool, "required tool call"),
        (.answersAfterClose, "close twice"),
        (.leaksMarkup, "required tool call"),
    ])
    func brokenModelFailsTheSuite(_ fault: ScriptedModel.Fault, _ check: String) async throws {
        let model = ScriptedModel.conformant(markup: .hermes, delay: .milliseconds(10), faults: [fault])
        let suite = ModelConformance(model: model, requestBound: .seconds(60))
        do {
            try await suite.runAll()
            Issue.record("a model that \(fault) passed the suite")
        } catch let failure as ConformanceFailure {
            #expect(failure.check == check, "\(failure)")
        }
    }

    @Test func turnsAreReplayedInOrder() async throws {
        let call = ToolCall(id: "call_1", name: "f", arguments: ["a": 1])
        let model = ScriptedModel(turns: [.toolCalls([call]), .text(["done"])])
        let suite = ModelConformance(model: model)
        let first = try await suite.run("replay", [.user("go")], options: .greedy())
        #expect(first.toolCalls == [call])
        #expect(first.metrics.last?.stopReason == .toolCall)
        let second = try await suite.run("replay", [.user("go")], options: .greedy())
        #expect(second.text == "done")
        #expect(model.requests.count == 2)
    }
}

/// The concurrency checks pass on a model that serves four at once, and catch one that does not.
@Suite struct ScriptedModelConcurrencyTests {
    @Test func fourAtOncePassTheConcurrencyChecks() async throws {
        let suite = ModelConformance(model: ScriptedModel.conformant(markup: .hermes, delay: .milliseconds(5), parallel: 4))
        try await suite.runConcurrency(count: 4)
        try await ModelConformance(model: ScriptedModel.conformant(delay: .milliseconds(5), parallel: 2, maxQueue: 1))
            .checkQueueBoundGivesBusy(parallel: 2, maxQueue: 1)
    }

    /// With every place but one filled, the request after a cancel waits for the cancelled one's
    /// place, so a model that ignores cancellation fails even when it serves four at once.
    @Test func ignoredCancellationFailsWithFourPlaces() async throws {
        let model = ScriptedModel.conformant(delay: .milliseconds(10), faults: [.ignoresCancellation], parallel: 4)
        let suite = ModelConformance(model: model, requestBound: .seconds(60), places: 4)
        do {
            try await suite.checkCancellation()
            Issue.record("a model that ignores cancellation passed at four places")
        } catch let failure as ConformanceFailure {
            #expect(failure.check == "cancellation", "\(failure)")
        }
        try await ModelConformance(model: ScriptedModel.conformant(delay: .milliseconds(10), parallel: 4), places: 4)
            .checkCancellation()
    }

    /// A cancelled stream that goes on decoding keeps its place, so the request after it waits.
    @Test func ignoredCancellationFailsTheCancelOneOfManyCheck() async throws {
        let model = ScriptedModel.conformant(delay: .milliseconds(5), faults: [.ignoresCancellation], parallel: 4)
        do {
            try await ModelConformance(model: model, requestBound: .seconds(60)).checkCancelOneOfMany(count: 4)
            Issue.record("a model that ignores cancellation passed")
        } catch let failure as ConformanceFailure {
            #expect(failure.message.contains("kept its place"), "\(failure)")
        }
    }

    @Test func oneAtATimeFailsTheConcurrencyCheck() async throws {
        let suite = ModelConformance(model: ScriptedModel.conformant(delay: .milliseconds(5), parallel: 1))
        do {
            try await suite.checkConcurrentMatchesSequential(count: 4)
            Issue.record("a model that serves one request at a time passed")
        } catch let failure as ConformanceFailure {
            #expect(failure.message.contains("not served together"), "\(failure)")
        }
    }

    @Test func anUnboundedQueueFailsTheBusyCheck() async throws {
        let suite = ModelConformance(model: ScriptedModel.conformant(delay: .milliseconds(5), parallel: 1, maxQueue: 8),
                                     requestBound: .seconds(60))
        do {
            try await suite.checkQueueBoundGivesBusy(parallel: 1, maxQueue: 1)
            Issue.record("a model that queues past the bound passed")
        } catch let failure as ConformanceFailure {
            #expect(failure.check == "queue bound", "\(failure)")
        }
    }
}
