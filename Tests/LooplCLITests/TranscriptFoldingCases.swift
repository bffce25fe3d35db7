import Loopl

/// TranscriptTests' event lists (Tests/LooplTests/Agent/TranscriptTests.swift), as steps the page's
/// JavaScript folds too: the same steps must give the same items in Swift and in the page.
enum TranscriptFoldingCases {
    enum Step {
        case user(String)
        case note(String)
        case event(AgentEvent)
        /// An event kind this Transcript does not know (a later schema's): the page skips it.
        case unknown(JSONValue)
    }

    static let call = ToolCall(id: "c1", name: "calc", arguments: ["expression": "17*23"])
    static let result = ToolResult(callId: "c1", name: "calc", isError: false, durationMs: 1, content: "391")
    static let other = ToolCall(id: "c2", name: "calc", arguments: ["expression": "3+3"])
    static let denied = ToolResult(callId: "c2", name: "calc", isError: true, durationMs: 0, content: "The user denied this call.")
    static let failed = ToolResult(callId: "c2", name: "calc", isError: true, durationMs: 2, content: "Error: bad")

    static let all: [(name: String, steps: [Step])] = [
        ("foldsARun", [
            .user("17*23?"), .event(.iterationStarted(1)), .event(.text("Let me")), .event(.text(" compute.")), .event(.text("")),
            .event(.metrics(Metrics(promptTokens: 5, generatedTokens: 2, finished: true, stopReason: .endTurn))),
            .event(.assistantMessage(.assistant(text: "Let me compute.", toolCalls: [call]))),
            .event(.toolStarted(call)), .event(.toolFinished(result)), .event(.toolFinished(result)),
            .event(.iterationStarted(2)), .event(.text("391.")), .event(.warning("careful")),
            .event(.finished(iterations: 2, reason: .answered)), .note("saved"),
        ]),
        ("textAfterANoteStartsANewItem", [.user("hi"), .event(.text("a")), .note("switched backend"), .event(.text("b"))]),
        ("retryingWithdrawsOnlyThatIterationsText", [
            .user("go"), .event(.iterationStarted(1)), .event(.text("first turn")), .event(.toolStarted(ToolCall(id: "c1", name: "calc"))),
            .event(.iterationStarted(2)), .event(.text("half")), .event(.warning("careful")), .event(.text(" more")),
            .event(.retrying(iteration: 2, reason: "the worker exited")), .event(.text("whole")),
        ]),
        ("reasoningDeltasMergeIntoOneItem", [
            .user("17*23?"), .event(.iterationStarted(1)), .event(.reasoning("The user")), .event(.metrics(Metrics(generatedTokens: 2))),
            .event(.reasoning(" wants 17*23.")), .event(.reasoning("")), .event(.text("It is 391.")), .event(.reasoning("Late thought.")),
            .event(.assistantMessage(.assistant(text: "It is 391.", toolCalls: [], reasoning: "The user wants 17*23."))),
            .event(.reasoning("Next turn.")),
        ]),
        ("retryingWithdrawsTheReasoningOfThatIteration", [
            .user("go"), .event(.iterationStarted(1)), .event(.reasoning("half a thought")),
            .event(.retrying(iteration: 1, reason: "lost")), .event(.reasoning("a whole thought")),
        ]),
        ("unknownKindsAndFailedCallsFold", [
            .user("go"), .event(.iterationStarted(1)), .event(.text("a")),
            .unknown(["event": "somethingNew", "toolCall": ["id": "c2"]]), .event(.text("b")),
            .event(.toolStarted(ToolCall(id: "c2", name: "calc"))), .event(.toolFinished(failed)),
            .event(.toolFinished(ToolResult(callId: "nope", name: "calc", isError: false, durationMs: 0, content: ""))),
        ]),
        // TranscriptApprovalTests' list, and a call cancelled while it waited.
        ("anApprovalIsShownThenDecided", [
            .user("2+2?"), .event(.iterationStarted(1)), .event(.approvalRequested(call)),
            .event(.approvalAnswered(callId: "c1", decision: .once)), .event(.approvalAnswered(callId: "c1", decision: .deny)),
            .event(.toolStarted(call)), .event(.toolFinished(result)),
            .event(.approvalRequested(other)), .event(.approvalAnswered(callId: "c2", decision: .deny)),
            .event(.toolFinished(denied)), .event(.toolFinished(denied)), .event(.approvalAnswered(callId: "nope", decision: .run)),
        ]),
        ("aCallCancelledWhileItWaitsGetsItsResult", [
            .user("2+2?"), .event(.iterationStarted(1)), .event(.approvalRequested(other)), .event(.text("late")),
            .event(.toolFinished(ToolResult(callId: "c2", name: "calc", isError: true, durationMs: 0, content: "Error: cancelled"))),
            .event(.finished(iterations: 1, reason: .cancelled)),
        ]),
    ]

    /// Every case as JSON: each step (`user`, `note`, or an event's JSON) with whether Swift's
    /// Transcript said it changed the items, and the items Swift folded.
    static func json() throws -> JSONValue {
        try .array(all.map { name, steps in
            var transcript = Transcript()
            var encoded: [JSONValue] = []
            for step in steps {
                switch step {
                case .user(let text):
                    transcript.user(text)
                    encoded.append(["user": .string(text)])
                case .note(let text):
                    transcript.note(text)
                    encoded.append(["note": .string(text)])
                case .event(let event):
                    let changed = transcript.apply(event)
                    encoded.append(["event": try JSONValue(encoding: event), "changed": .bool(changed)])
                case .unknown(let value):
                    encoded.append(["event": value, "changed": false])
                }
            }
            return ["name": .string(name), "steps": .array(encoded), "items": .array(try transcript.items.map(item))]
        })
    }

    static func item(_ item: Transcript.Item) throws -> JSONValue {
        switch item {
        case .user(let text): ["kind": "user", "text": .string(text)]
        case .reasoning(let text): ["kind": "reasoning", "text": .string(text)]
        case .assistant(let text): ["kind": "assistant", "text": .string(text)]
        case .warning(let text): ["kind": "warning", "text": .string(text)]
        case .note(let text): ["kind": "note", "text": .string(text)]
        case .toolCall(let call, let result):
            ["kind": "toolCall", "call": try JSONValue(encoding: call), "result": try result.map { try JSONValue(encoding: $0) } ?? .null]
        case .approval(let call, let decision):
            ["kind": "approval", "call": try JSONValue(encoding: call), "decision": decision.map { .string($0.rawValue) } ?? .null]
        }
    }
}
