import Foundation
import Loopl
import Testing

/// `loopl chat` through a pseudo-terminal on the Python reference worker: `--continue` finishes
/// an interrupted run, and a retried turn shows a one-line notice.
@Suite(.serialized) struct ChatResumeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `loopl chat --config HOME/config.json ARGUMENTS` with `steps` typed in; the worker runs `worker`.
    static func chat(_ steps: [(String, String, Int)], _ arguments: [String], worker: [String], home: String) throws -> String {
        let config: JSONValue = ["default": "py", "backends": ["py": ["kind": "stdio", "command": .array(
            (["python3", root.appendingPathComponent("backends/python/worker.py").path] + worker).map(JSONValue.string))]]]
        try config.jsonText().write(toFile: home + "/config.json", atomically: true, encoding: .utf8)
        return try ChatTests.chat(steps, ["--config", home + "/config.json"] + arguments, home: home)
    }

    static func home() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-chat-resume-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path + "/loopl", withIntermediateDirectories: true)
        return path
    }

    @Test(.timeLimit(.minutes(2)))
    func continueFinishesAnInterruptedRun() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let conversation = home + "/loopl/conversation.json"
        let call = ToolCall(id: "call_1", name: "calculator", arguments: ["expression": "17*23"])
        let saved: [Message] = [.user("What is 17*23?"), .assistant(text: "", toolCalls: [call])]
        try SessionFile.save(saved, to: conversation)
        let script = home + "/script.json"
        try #"{"nativeToolCalls": true, "turns": [{"chunks": ["17", " times", " 23", " is", " 391", "."]}]}"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        let out = try Self.chat([("", "› ", 60), ("/quit\n", "", 10)], ["--continue", "--tools", "calc"],
                                worker: ["--script", script], home: home)
        #expect(out.contains("finishing the interrupted run"), "\(out)")
        #expect(out.contains("✓ calculator"), "\(out)")
        #expect(out.contains("17 times 23 is 391."), "\(out)")
        #expect(try SessionFile.load(conversation) == saved + [.tool(result: "391", callId: "call_1", name: "calculator"),
                                                               .assistant("17 times 23 is 391.")])
    }

    /// `a` (approve for this run) at the terminal is for that tool alone: the calculator runs
    /// unasked after it, while current_time is still asked about (and denied, with `n`).
    @Test(.timeLimit(.minutes(2)))
    func approvingForTheRunAtTheTerminalIsForThatToolAlone() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let script = home + "/script.json"
        try #"{"nativeToolCalls": true, "turns": [{"toolCalls": [{"name": "calculator", "arguments": {"expression": "2+2"}}, {"name": "current_time", "arguments": {}}]}, {"toolCalls": [{"name": "calculator", "arguments": {"expression": "3+3"}}, {"name": "current_time", "arguments": {}}]}, {"chunks": ["Done."]}]}"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        let out = try Self.chat([("", "› ", 60), ("Both, twice.\n", "Run it?", 60), ("a\n", "? current_time", 30), ("n\n", "? current_time", 30),
                                 ("n\n", "› ", 30), ("/quit\n", "", 10)],
                                ["--tools", "calc,time", "--approve", "ask"], worker: ["--script", script], home: home)
        #expect(out.components(separatedBy: "? calculator {").count == 2, "\(out)")
        let results = ApprovalCommandTests.toolResults(try SessionFile.load(home + "/loopl/conversation.json"))
        #expect(results == ["4", "The user denied this call.", "6", "The user denied this call."], "\(results) \(out)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aRetriedTurnShowsANotice() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = try Self.chat([("", "› ", 60), ("Hello\n", "today?", 60), ("", "› ", 30), ("/quit\n", "", 10)], [],
                                worker: ["--fault", "crash", "--fault-after", "3", "--fault-once", home + "/crashed"], home: home)
        #expect(out.contains("· retrying turn 1: The worker ("), "\(out)")
        #expect(try SessionFile.load(home + "/loopl/conversation.json") == [.user("Hello"), .assistant("Hello! How can I help you today?")])
    }
}
