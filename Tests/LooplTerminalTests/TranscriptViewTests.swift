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
            .iterationStarted(1), .text("Let me compute."), .toolStarted(call),
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
    }

    @Test func runningCallShowsNoMark() {
        let view = TranscriptView(style: TerminalStyle(colour: false))
        #expect(view.pill(ToolCall(name: "calculator"), nil) == "… calculator")
    }
}
