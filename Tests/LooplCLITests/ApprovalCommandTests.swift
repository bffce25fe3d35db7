import Foundation
import Loopl
@testable import LooplCLI
import LooplTestKit
import Testing

/// Calls that need approval in `loopl chat` (a person in a pseudo-terminal) and `loopl run`
/// (no terminal: denied), on the real default model forced to call the calculator.
@Suite(.serialized) struct ApprovalCommandTests {
    static let forced = ["--tools", "calc", "--tool-choice", "required", "--max-iterations", "1", "--max-tokens", "64"]

    /// Runs the built `loopl` with `arguments`, standard input empty and no terminal.
    static func loopl(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChatTests.binary)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.environment = environmentWithFreshPromptCache()
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    static func file(_ name: String, _ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-approval-\(UUID())-\(name)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func toolResults(_ messages: [Message]) -> [String] {
        messages.compactMap { if case .tool(let result, _, _) = $0 { result } else { nil } }
    }

    @Test(.timeLimit(.minutes(10)))
    func chatAsksAndTheAnswersNThenYDenyThenRunAndCtrlCCancels() throws {
        let home = try ChatTests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = try ChatTests.chat([
            ("", "› ", 60),
            ("What is 2+2?\n", "Run it?", 120),
            ("n\n", "› ", 120),
            ("What is 3+3?\n", "Run it?", 120),
            ("maybe\n", "Answer y, a or n", 30),
            ("y\n", "› ", 120),
            ("What is 4+4?\n", "Run it?", 120),
            ("^C", "cancelled", 60),
            ("", "› ", 30),
            ("/quit\n", "", 10),
        ], Self.forced + ["--approve", "ask"], home: home)
        #expect(out.components(separatedBy: "? calculator {").count == 4, "\(out)")
        #expect(out.contains("EXIT 0"), "\(out)")
        let results = Self.toolResults(try SessionFile.load(home + "/loopl/conversation.json"))
        // n, then y (after an answer it does not know), then Ctrl-C while it asks. A turn may hold
        // several calls (parallel calls are on): each is answered as its turn's first was.
        let (denied, cancelled) = ("The user denied this call.", "Cancelled before it ran.")
        let afterDenied = results.drop { $0 == denied }
        let ran = afterDenied.prefix { $0 != denied && $0 != cancelled }
        #expect(afterDenied.count < results.count && !ran.isEmpty, "\(results)")
        #expect(!afterDenied.dropFirst(ran.count).isEmpty && afterDenied.dropFirst(ran.count).allSatisfy { $0 == cancelled }, "\(results)")
    }

    @Test(.timeLimit(.minutes(10)))
    func runWithoutATerminalDeniesAndSaysHowToAllow() throws {
        let result = try Self.loopl(["run", "--temperature", "0"] + Self.forced + ["--approve", "ask", "--json", "What is 2+2?"])
        #expect(result.status == 0, "\(result.err)")
        let events = try RunTests.events(result.out)
        let names = events.compactMap { $0["event"]?.stringValue }
        #expect(names.contains("approvalRequested") && !names.contains("toolStarted"), "\(names)")
        #expect(events.contains { $0["event"] == "approvalAnswered" && $0["decision"] == "deny" })
        #expect(events.first { $0["event"] == "toolFinished" }?["result"]?["content"] == "The user denied this call.")
        #expect(result.err.contains("loopl: denied calculator {\"expression\":"), "\(result.err)")
        #expect(result.err.contains("standard input is not a terminal to ask on; to let it run, pass --approve allow."), "\(result.err)")
    }

    /// A built-in tool set to ask in the config: --approve allow leaves it so, and the hint names the config.
    @Test(.timeLimit(.minutes(10)))
    func aToolTheConfigSetsToAskStaysSoAndTheHintNamesTheConfig() throws {
        let config = try Self.file("config.json", #"{"tools": {"calc": {"approval": "ask"}}}"#)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try Self.loopl(["run", "--temperature", "0", "--config", config, "--approve", "allow"] + Self.forced + ["What is 2+2?"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("to let it run, set \"approval\": \"allow\" in the config's tools.calc."), "\(result.err)")
        #expect(!result.err.contains("✓ calculator"), "\(result.err)")
    }

    @Test(.timeLimit(.minutes(10)))
    func resumeAsksAboutThePendingCalls() throws {
        let call = ToolCall(id: "call_1", name: "calculator", arguments: ["expression": "2+2"])
        let session = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-approval-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: session) }
        try SessionFile.save([.user("What is 2+2?"), .assistant(text: "", toolCalls: [call])], to: session)
        let result = try Self.loopl(["run", "--session", session, "--resume", "--tools", "calc", "--approve", "ask",
                                     "--max-iterations", "1", "--max-tokens", "8"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("loopl: denied calculator {\"expression\":\"2+2\"}"), "\(result.err)")
        let saved = try SessionFile.load(session)
        #expect(saved.count >= 3 && saved[2] == .tool(result: "The user denied this call.", callId: "call_1", name: "calculator"), "\(saved)")
    }

    @Test func badApprovalSettingsAreClearErrors() async throws {
        let usage = await CapturedConsole.run(["run", "--approve", "maybe", "hi"])
        #expect(usage.status == .usage)
        #expect(usage.err.contains("--approve takes ask or allow, not 'maybe'."), "\(usage.err)")
        let serve = await CapturedConsole.run(["serve", "--approve", "never"])
        #expect(serve.status == .usage)
        #expect(serve.err.contains("--approve takes ask or allow, not 'never'."), "\(serve.err)")
        let config = try Self.file("bad.json", #"{"tools": {"shell": {"approval": "ask"}}}"#)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let bad = await CapturedConsole.run(["run", "--config", config, "--tools", "calc", "hi"])
        #expect(bad.status == .failure)
        #expect(bad.err.contains("'tools' names 'shell', which is not a built-in tool (calc, time, files)"), "\(bad.err)")
        let value = try Self.file("value.json", #"{"tools": {"calc": {"approval": "never"}}}"#)
        defer { try? FileManager.default.removeItem(atPath: value) }
        let wrong = await CapturedConsole.run(["run", "--config", value, "--tools", "calc", "hi"])
        #expect(wrong.err.contains(#"tools.calc: 'approval' must be "ask" or "allow""#), "\(wrong.err)")
    }
}
