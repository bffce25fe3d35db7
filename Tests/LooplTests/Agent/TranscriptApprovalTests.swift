import Loopl
import Testing

/// A call that waits for approval is an item of its own, which keeps the decision.
@Suite struct TranscriptApprovalTests {
    @Test func anApprovalIsShownThenDecided() {
        var transcript = Transcript()
        transcript.user("2+2?")
        let call = ToolCall(id: "c1", name: "calc", arguments: ["expression": "2+2"])
        let other = ToolCall(id: "c2", name: "calc", arguments: ["expression": "3+3"])
        let denied = ToolResult(callId: "c2", name: "calc", isError: true, durationMs: 0, content: "The user denied this call.")
        let steps: [(AgentEvent, Bool)] = [
            (.approvalRequested(call), true),
            (.approvalAnswered(callId: "c1", decision: .once), true),
            (.approvalAnswered(callId: "c1", decision: .deny), false),
            (.toolStarted(call), true),
            (.approvalRequested(other), true),
            (.approvalAnswered(callId: "c2", decision: .deny), true),
            (.toolFinished(denied), true),
            (.toolFinished(denied), false),
        ]
        for (event, changes) in steps {
            #expect(transcript.apply(event) == changes, "\(event)")
        }
        #expect(transcript.items == [
            .user("2+2?"), .approval(call, decision: .once), .toolCall(call, result: nil), .approval(other, decision: .deny),
            .toolCall(other, result: denied),
        ])
    }
}
