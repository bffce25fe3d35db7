import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// `--think`, `--think-budget`, `--show-thinking` and `/think`, on a scripted worker that thinks
/// (Tests/Data/CLI/thinking-script.json), so no model decodes.
@Suite struct ReasoningCommandTests {
    /// A config whose default backend is the Python worker playing the thinking script.
    static func config() throws -> String {
        let root = CommandLineConventionTests.root
        let command: [JSONValue] = ["python3", .string(root.appendingPathComponent("backends/python/worker.py").path),
                                    "--script", .string(root.appendingPathComponent("Tests/Data/CLI/thinking-script.json").path)]
        let config: JSONValue = ["default": "thinking", "backends": ["thinking": ["kind": "stdio", "command": .array(command)]]]
        return try ToolingCommandTests.temporary(config.jsonText(), ".json")
    }

    @Test func jsonRunsCarryTheReasoning() throws {
        let config = try Self.config()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try ToolingCommandTests.loopl(["run", "--config", config, "--tools", "calc", "--think", "high", "--think-budget", "64",
                                                    "--json", "What is 17*23?"])
        #expect(result.status == 0, "\(result.err)")
        let events = try RunTests.events(result.out)
        let reasoning = events.filter { $0["event"] == "reasoning" }.compactMap { $0["text"]?.stringValue }.joined()
        #expect(reasoning == "\nUse the calculator: 17*23.\nThe result is 391.")
        #expect(events.filter { $0["event"] == "text" }.allSatisfy { !($0["text"]?.stringValue ?? "").contains("<") })
        let messages = events.filter { $0["event"] == "assistantMessage" }.compactMap { $0["message"] }
        #expect(messages.map { $0["reasoning_content"] } == ["Use the calculator: 17*23.", "The result is 391."])
        #expect(messages.last?["content"] == "17*23 is 391.")
        #expect(events.last?["event"] == "finished")
    }

    @Test func plainRunsShowTheReasoningOnStandardError() throws {
        let config = try Self.config()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let session = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-thinking-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: session) }
        let collapsed = try ToolingCommandTests.loopl(["run", "--config", config, "--tools", "calc", "--session", session, "What is 17*23?"])
        #expect(collapsed.status == 0, "\(collapsed.err)")
        #expect(collapsed.out == "17*23 is 391.\n")
        #expect(collapsed.err.contains("▸ thought for 26 characters: Use the calculator: 17*23.\n"), "\(collapsed.err)")
        #expect(collapsed.err.contains("▸ thought for 18 characters: The result is 391.\n"), "\(collapsed.err)")
        // The session keeps the thinking.
        #expect(try SessionFile.load(session).compactMap(\.reasoning) == ["Use the calculator: 17*23.", "The result is 391."])
        let full = try ToolingCommandTests.loopl(["run", "--config", config, "--tools", "calc", "--show-thinking", "What is 17*23?"])
        #expect(full.out == "17*23 is 391.\n")
        #expect(full.err.hasPrefix("Use the calculator: 17*23.\n\n\n"), "\(full.err)")
        #expect(!full.err.contains("▸ thought"))
    }

    @Test func settingsReadTheFlags() throws {
        var arguments = Arguments(["--think", "low", "--think-budget", "100", "--show-thinking"])
        let settings = try AgentSettings(arguments: &arguments)
        #expect(settings.generation.reasoning == .effort(.low))
        #expect(settings.generation.reasoningBudget == 100)
        #expect(settings.showReasoning)
        var none = Arguments([])
        let defaults = try AgentSettings(arguments: &none)
        #expect(defaults.generation.reasoning == .auto && defaults.generation.reasoningBudget == nil && !defaults.showReasoning)
    }

    @Test(arguments: [
        (["run", "--think", "maybe", "x"], "--think takes auto, on, off, low, medium or high, not 'maybe'."),
        (["run", "--think-budget", "-1", "x"], "--think-budget takes a whole number from 0 to 1000000"),
    ])
    func badValuesAreUsageErrors(_ arguments: [String], _ message: String) async {
        let result = await CapturedConsole.run(arguments)
        #expect(result.status == .usage, "\(arguments): \(result.err)")
        #expect(result.err.contains(message), "\(arguments): \(result.err)")
    }

    @Test(.timeLimit(.minutes(2)))
    func chatSwitchesReasoningAndShowsItCollapsed() throws {
        let config = try Self.config()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let home = try ChatTests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = try ChatTests.chat([
            ("", "› ", 30),
            ("/think sometimes\n", "/think takes", 10),
            ("/think off\n", "thinking off", 10),
            ("/think high\n", "thinking high", 10),
            ("What is 17*23?\n", "is 391.", 30),
            ("/quit\n", "", 10),
        ], ["--config", config, "--tools", "calc"], home: home)
        #expect(out.contains("(now: auto)"), "\(out)")
        #expect(out.contains("· thinking off"), "\(out)")
        #expect(out.contains("· thinking high"), "\(out)")
        #expect(out.contains("▸ thought for 26 characters: Use the calculator: 17*23."), "\(out)")
        #expect(out.contains("EXIT 0"), "\(out)")
    }
}
