import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// `loopl run` over the Python reference worker: a retried turn in both output modes, the
/// session saved as it goes, and `--resume`.
@Suite(.serialized) struct ResumeTests {
    static let worker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("backends/python/worker.py").path

    /// A folder with a config whose default backend is the worker run with `arguments`.
    static func folder(_ arguments: [String] = [], script: JSONValue? = nil) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-resume-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var command: [String] = ["python3", worker] + arguments
        if let script {
            try script.jsonText().write(to: folder.appendingPathComponent("script.json"), atomically: true, encoding: .utf8)
            command += ["--script", folder.appendingPathComponent("script.json").path]
        }
        let config: JSONValue = ["default": "py", "backends": ["py": ["kind": "stdio", "command": .array(command.map(JSONValue.string))]]]
        try config.jsonText().write(to: folder.appendingPathComponent("config.json"), atomically: true, encoding: .utf8)
        return folder
    }

    /// A worker that crashes mid-stream in its first request, then works (its marker in `folder`).
    static func crashingOnce() throws -> URL {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-resume-crashed-\(UUID())").path
        let folder = try folder(["--fault", "crash", "--fault-after", "3", "--fault-once", marker])
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("marker").path, withDestinationPath: marker)
        return folder
    }

    static func remove(_ folder: URL) {
        if let marker = try? FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("marker").path) {
            try? FileManager.default.removeItem(atPath: marker)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    @Test(.timeLimit(.minutes(1)))
    func jsonModePrintsTheRetryingEvent() async throws {
        let folder = try Self.crashingOnce()
        defer { Self.remove(folder) }
        let config = folder.appendingPathComponent("config.json").path
        let result = await CapturedConsole.run(["run", "--config", config, "--json", "Hello"])
        #expect(result.status == .success, "\(result.err)")
        let events = try result.out.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let retries = events.filter { $0["event"] == "retrying" }
        #expect(retries.count == 1)
        #expect(retries.first?["iteration"] == 1)
        #expect(retries.first?["reason"]?.stringValue?.contains("exited with status 7 mid-stream") == true, "\(retries)")
        #expect(events.last == ["event": "finished", "iterations": 1, "reason": "answered"])
        #expect(events.first { $0["event"] == "assistantMessage" }?["message"]?["content"] == "Hello! How can I help you today?")
    }

    @Test(.timeLimit(.minutes(1)))
    func plainModeKeepsThePrintedTextAndStartsTheRetryOnANewLine() async throws {
        let folder = try Self.crashingOnce()
        defer { Self.remove(folder) }
        let config = folder.appendingPathComponent("config.json").path
        let result = await CapturedConsole.run(["run", "--config", config, "Hello"])
        #expect(result.status == .success, "\(result.err)")
        #expect(result.err.contains("[retrying turn 1: The worker ("), "\(result.err)")
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 3, "\(result.out.debugDescription)")
        #expect(lines.first.map { "Hello! How can I help you today?".hasPrefix($0) && !$0.isEmpty } == true, "\(lines)")
        #expect(lines.dropFirst().first == "Hello! How can I help you today?")
    }

    /// A run whose every turn loses its engine: the typed error, and the session keeps the
    /// complete turns before it.
    @Test(.timeLimit(.minutes(1)))
    func aSecondFailureEndsTheRunAndTheSessionKeepsTheCompleteTurns() async throws {
        let folder = try Self.folder(["--fault", "crash"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = folder.appendingPathComponent("session.json").path
        let earlier: [Message] = [.user("Hi"), .assistant("Hello.")]
        try SessionFile.save(earlier, to: session)
        let result = await CapturedConsole.run(["run", "--config", folder.appendingPathComponent("config.json").path,
                                                "--session", session, "Again"])
        #expect(result.status == .failure)
        #expect(result.err.contains("exited with status 7"), "\(result.err)")
        #expect(result.err.components(separatedBy: "[retrying turn 1").count == 2, "\(result.err)")
        #expect(try SessionFile.load(session) == earlier + [.user("Again")])
    }

    @Test(.timeLimit(.minutes(1)))
    func resumeRunsThePendingCallsAndFinishesTheRun() async throws {
        let script: JSONValue = ["name": "resume", "version": "1", "contextMax": 2048, "nativeToolCalls": true,
                                 "turns": [["chunks": ["17", " times", " 23", " is", " 391", "."]]]]
        let folder = try Self.folder(script: script)
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = folder.appendingPathComponent("session.json").path
        let call = ToolCall(id: "call_1", name: "calculator", arguments: ["expression": "17*23"])
        let saved: [Message] = [.user("What is 17*23?"), .assistant(text: "", toolCalls: [call])]
        try SessionFile.save(saved, to: session)
        let config = folder.appendingPathComponent("config.json").path
        let result = await CapturedConsole.run(["run", "--config", config, "--session", session, "--resume", "--tools", "calc", "--json"])
        #expect(result.status == .success, "\(result.err)")
        #expect(try SessionFile.load(session) == saved + [.tool(result: "391", callId: "call_1", name: "calculator"),
                                                          .assistant("17 times 23 is 391.")])
        #expect(result.out.hasSuffix(#"{"event":"finished","iterations":1,"reason":"answered"}"# + "\n"), "\(result.out)")
        // Nothing is left to finish.
        let again = await CapturedConsole.run(["run", "--config", config, "--session", session, "--resume", "--json"])
        #expect(again.out == #"{"event":"finished","iterations":0,"reason":"answered"}"# + "\n")
        #expect(try SessionFile.load(session).count == 4)
    }

    @Test func resumeNeedsASessionAndNoPrompt() async {
        let bare = await CapturedConsole.run(["run", "--resume"])
        #expect(bare.status == .usage)
        #expect(bare.err.contains("--resume needs --session FILE"))
        let prompt = await CapturedConsole.run(["run", "--session", "/tmp/x.json", "--resume", "Hello"])
        #expect(prompt.status == .usage)
        #expect(prompt.err.contains("--resume takes no prompt"))
    }
}
