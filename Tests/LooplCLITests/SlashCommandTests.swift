import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// `loopl chat`'s slash commands on the real default model (greedy, threads fixed).
@Suite(.serialized) struct SlashCommandTests {
    /// Unforced, the default model answers 17*23 itself (wrongly); `/tool-choice required` makes it
    /// call the calculator, and `/tool-choice none` offers no tool again.
    @Test(.timeLimit(.minutes(5)))
    func toolChoiceSetsTheNextTurns() throws {
        let home = try ChatTests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = try ChatTests.chat([
            ("", "› ", 60),
            ("What is 17*23?\n", "› ", 120),
            ("/tool-choice required\n", "tool choice required", 10),
            ("What is 17*23?\n", "› ", 120),
            ("/tool-choice none\n", "tool choice none", 10),
            ("What is 17*23?\n", "› ", 120),
            ("/quit\n", "", 10),
        ], ["--tools", "calc", "--max-tokens", "64", "-t", "2"], home: home)
        let parts = out.components(separatedBy: "· tool choice ")
        #expect(parts.count == 3, "\(out)")
        let calls = parts.map { $0.components(separatedBy: "✓ calculator").count - 1 }
        #expect(calls == [0, 1, 0], "calls per turn (auto, required, none): \(calls)\n\(out)")
        #expect(out.contains("EXIT 0"), "\(out)")
    }
}
