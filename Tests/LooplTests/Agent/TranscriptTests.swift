import Loopl
import Testing

@Suite struct TranscriptTests {
    @Test func foldsARun() {
        var transcript = Transcript()
        transcript.user("17*23?")
        #expect(transcript.isRunning)
        let call = ToolCall(id: "c1", name: "calc", arguments: ["expression": "17*23"])
        let result = ToolResult(callId: "c1", name: "calc", isError: false, durationMs: 1, content: "391")
        let metrics = Metrics(promptTokens: 5, generatedTokens: 2, finished: true, stopReason: .endTurn)
        let steps: [(AgentEvent, Bool)] = [
            (.iterationStarted(1), false),
            (.text("Let me"), true),
            (.text(" compute."), true),
            (.text(""), false),
            (.metrics(metrics), false),
            (.assistantMessage(.assistant(text: "Let me compute.", toolCalls: [call])), false),
            (.toolStarted(call), true),
            (.toolFinished(result), true),
            (.toolFinished(result), false),
            (.iterationStarted(2), false),
            (.text("391."), true),
            (.warning("careful"), true),
            (.finished(iterations: 2, reason: .answered), false),
        ]
        for (event, changes) in steps {
            #expect(transcript.apply(event) == changes, "\(event)")
        }
        #expect(transcript.items == [
            .user("17*23?"), .assistant("Let me compute."), .toolCall(call, result: result),
            .assistant("391."), .warning("careful"),
        ])
        #expect(transcript.metrics == metrics)
        #expect(transcript.iteration == 2)
        #expect(!transcript.isRunning)
        transcript.note("saved")
        #expect(transcript.items.last == .note("saved"))
        transcript.clear()
        #expect(transcript.items.isEmpty && transcript.metrics == nil)
    }

    @Test func textAfterANoteStartsANewItem() {
        var transcript = Transcript()
        transcript.user("hi")
        transcript.apply(.text("a"))
        transcript.note("switched backend")
        transcript.apply(.text("b"))
        #expect(transcript.items == [.user("hi"), .assistant("a"), .note("switched backend"), .assistant("b")])
    }

    @Test func retryingWithdrawsOnlyThatIterationsText() {
        var transcript = Transcript()
        transcript.user("go")
        let call = ToolCall(id: "c1", name: "calc")
        transcript.apply(.iterationStarted(1))
        transcript.apply(.text("first turn"))
        transcript.apply(.toolStarted(call))
        transcript.apply(.iterationStarted(2))
        transcript.apply(.text("half"))
        transcript.apply(.warning("careful"))
        transcript.apply(.text(" more"))
        let changed = transcript.apply(.retrying(iteration: 2, reason: "the worker exited"))
        #expect(changed)
        transcript.apply(.text("whole"))
        #expect(transcript.items == [.user("go"), .assistant("first turn"), .toolCall(call, result: nil), .warning("careful"),
                                     .note("retrying turn 2: the worker exited"), .assistant("whole")])
    }
}

/// Thinking in the transcript: deltas merge into one open reasoning item, and text after it starts
/// its own item.
@Suite struct TranscriptReasoningTests {
    @Test func reasoningDeltasMergeIntoOneItem() {
        var transcript = Transcript()
        transcript.user("17*23?")
        let steps: [(AgentEvent, Bool)] = [
            (.iterationStarted(1), false),
            (.reasoning("The user"), true),
            (.metrics(Metrics(generatedTokens: 2)), false),
            (.reasoning(" wants 17*23."), true),
            (.reasoning(""), false),
            (.text("It is 391."), true),
            (.reasoning("Late thought."), true),
            (.assistantMessage(.assistant(text: "It is 391.", toolCalls: [], reasoning: "The user wants 17*23.")), false),
            (.reasoning("Next turn."), true),
        ]
        for (event, changes) in steps {
            #expect(transcript.apply(event) == changes, "\(event)")
        }
        #expect(transcript.items == [.user("17*23?"), .reasoning("The user wants 17*23."), .assistant("It is 391."),
                                     .reasoning("Late thought."), .reasoning("Next turn.")])
    }

    @Test func retryingWithdrawsTheReasoningOfThatIteration() {
        var transcript = Transcript()
        transcript.user("go")
        transcript.apply(.iterationStarted(1))
        transcript.apply(.reasoning("half a thought"))
        transcript.apply(.retrying(iteration: 1, reason: "lost"))
        transcript.apply(.reasoning("a whole thought"))
        #expect(transcript.items == [.user("go"), .note("retrying turn 1: lost"), .reasoning("a whole thought")])
    }
}
