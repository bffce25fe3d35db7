import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// The smoke generation on the real default model, through libllama.
@Suite(.serialized) struct SmokeTests {
    @Test(.timeLimit(.minutes(5)))
    func smokeGeneratesTextFromTheDefaultModel() async throws {
        try #require(FileManager.default.fileExists(atPath: LooplHome.defaultModel), "run scripts/bootstrap first")
        let result = await CapturedConsole.run(["smoke", "--tokens", "8", "--threads", "2"])
        #expect(result.status == .success, "stderr: \(result.err)")
        #expect(result.out.trimmingCharacters(in: .whitespacesAndNewlines).count > 0)
        let again = await CapturedConsole.run(["smoke", "--tokens", "8", "--threads", "2"])
        #expect(again.out == result.out, "greedy output differs between two runs")
        #expect(result.out.lowercased().contains("paris"), "the default model should know France's capital: \(result.out)")
    }
}
