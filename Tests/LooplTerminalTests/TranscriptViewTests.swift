import Foundation
import Loopl
import LooplTerminal
import Testing

/// The terminal view's output as goldens, with and without colour (scripts/update-goldens rewrites them).
@Suite struct TranscriptViewTests {
    static var transcript: Transcript {
        var transcript = Transcript()
        transcript.user("What is 17*23?")
        let call = ToolCall(id: "c1", name: "calculator", arguments: ["expression": "17*23"])
        let bad = ToolCall(id: "c2", name: "read_file", arguments: ["path": "../secret"])
        for event: AgentEvent in [
            .iterationStarted(1), .reasoning("The user wants 17*23.\nI should use"), .reasoning(" the calculator rather than guess."),
            .text("Let me compute."), .toolStarted(call),
            .toolFinished(ToolResult(callId: "c1", name: "calculator", isError: false, durationMs: 3.2, content: "391")),
            .toolStarted(bad),
            .toolFinished(ToolResult(callId: "c2", name: "read_file", isError: true, durationMs: 1500, content: "Error: ../secret leads outside\nthe root.")),
            .warning("calculator was called with the same arguments 3 times in this run."),
            .iterationStarted(2), .text("17*23 = 391."),
            .metrics(Metrics(promptTokens: 200, generatedTokens: 12, ttftMs: 41.6, tokensPerSecond: 180.4, contextUsed: 212, contextMax: 4096, finished: true, stopReason: .endTurn)),
        ] { transcript.apply(event) }
        transcript.note("saved to chat.json")
        return transcript
    }

    static func golden(_ name: String, _ actual: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name).txt")
        let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        #expect(actual == expected, "\(name) differs from its golden \(url.path) (scripts/update-goldens rewrites it)")
        // The update still fails the run that writes it: only the next run, against the new file, passes.
        if actual != expected, ProcessInfo.processInfo.environment["LOOPL_UPDATE_GOLDEN"] != nil {
            try actual.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func rendersAsTheGolden(_ colour: Bool, _ verbose: Bool) throws {
        let view = TranscriptView(style: TerminalStyle(colour: colour), verbose: verbose)
        let text = view.render(Self.transcript)
        try Self.golden("transcript\(colour ? "-colour" : "")\(verbose ? "-verbose" : "")", text)
        #expect(text.contains("\u{1B}[") == colour)
        // Thinking is one line with its length, unless shown in full.
        #expect(text.contains("▸ thought for 68 characters: The user wants 17*23. I should use the calculator rather tha…"))
        #expect(!text.contains("guess."))
    }

    /// `--show-thinking`: the thinking in full, every line dimmed.
    @Test(arguments: [false, true])
    func fullReasoningRendersAsTheGolden(_ colour: Bool) throws {
        let view = TranscriptView(style: TerminalStyle(colour: colour), showReasoning: true)
        let text = view.render(Self.transcript)
        try Self.golden("transcript-thinking\(colour ? "-colour" : "")", text)
        #expect(text.contains("I should use the calculator rather than guess."))
        #expect(text.contains("\u{1B}[2mI should use the calculator rather than guess.\u{1B}[0m") == colour)
    }

    /// While thinking streams: a status line on a colour terminal, rewritten as the collapsed line
    /// when the thinking ends; nothing until then without colour; everything with --show-thinking.
    @Test func reasoningStreams() {
        var plain = ReasoningStream(view: TranscriptView(style: TerminalStyle(colour: false)))
        #expect(plain.reasoning("Hmm, ") == "" && plain.reasoning("let me see.") == "")
        #expect(plain.end() == "▸ thought for 16 characters: Hmm, let me see.\n")
        #expect(plain.end() == "")
        var colour = ReasoningStream(view: TranscriptView(style: TerminalStyle(colour: true)))
        #expect(colour.reasoning("Hmm.") == "\u{1B}[2m▸ thinking…\u{1B}[0m")
        #expect(colour.reasoning(" More.") == "")
        #expect(colour.end() == "\r\u{1B}[2K\u{1B}[2m▸ thought for 10 characters: Hmm. More.\u{1B}[0m\n")
        var full = ReasoningStream(view: TranscriptView(style: TerminalStyle(colour: false), showReasoning: true))
        #expect(full.reasoning("\n") + full.reasoning("Hmm,\n") + full.reasoning("yes.") == "Hmm,\nyes.")
        #expect(full.end() == "\n\n")
    }

    /// A turn whose engine was lost: its partial text is withdrawn, a one-line notice stays, and
    /// only the retry's text shows.
    static var retried: Transcript {
        var transcript = Transcript()
        transcript.user("Tell me about lighthouses.")
        for event: AgentEvent in [
            .iterationStarted(1), .text("Lighthouses guide"), .text(" ships and"),
            .warning("The model repeated a call."),
            .retrying(iteration: 1, reason: "The worker (loopl worker --backend llama) exited with status 134 mid-stream."),
            .text("Lighthouses guide ships home."), .assistantMessage(.assistant("Lighthouses guide ships home.")),
            .finished(iterations: 1, reason: .answered),
        ] { transcript.apply(event) }
        return transcript
    }

    @Test(arguments: [false, true])
    func aWithdrawnTurnRendersAsTheGolden(_ colour: Bool) throws {
        let view = TranscriptView(style: TerminalStyle(colour: colour))
        let text = view.render(Self.retried)
        try Self.golden("transcript-retried\(colour ? "-colour" : "")", text)
        #expect(!text.contains("ships and"))
    }

    @Test func runningCallShowsNoMark() {
        let view = TranscriptView(style: TerminalStyle(colour: false))
        #expect(view.pill(ToolCall(name: "calculator"), nil) == "… calculator")
    }
}

/// A call waiting for approval shows its name and all its arguments; then the decision.
@Suite struct ApprovalViewTests {
    @Test func approvalsRender() {
        let view = TranscriptView(style: TerminalStyle(colour: false))
        let call = ToolCall(id: "c1", name: "files_write", arguments: ["path": "notes.txt", "text": "a\u{1B}[2Jb"])
        #expect(view.render(.approval(call, decision: nil)) == #"? files_write {"path":"notes.txt","text":"a\u001b[2Jb"}"#)
        #expect(view.render(.approval(call, decision: .once)) == "✓ files_write approved once")
        #expect(view.render(.approval(call, decision: .run)) == "✓ files_write approved for this run")
        #expect(view.render(.approval(call, decision: .deny)) == "✗ files_write denied")
        #expect(TranscriptView(style: TerminalStyle(colour: true)).render(.approval(call, decision: nil)).hasPrefix("\u{1B}["))
    }
}
