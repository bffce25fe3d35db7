import Foundation
import Loopl
@testable import LooplCLI
import LooplLlama
import LooplTestKit
import Testing

/// `loopl cache ls` lists the saved prompts with their tokens, and `clear` removes them.
@Suite struct CacheCommandTests {
    @Test func listsAndClearsTheSavedPrompts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-cache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = PromptCacheFile.encode(key: "k", tokens: Array(1...300), state: [UInt8](repeating: 7, count: 4096))
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/a-b.bin"))
        let listed = await CapturedConsole.run(["cache", "ls", "--dir", directory])
        #expect(listed.status == .success)
        #expect(listed.out.contains("300 tokens") && listed.out.contains("a-b.bin"), "\(listed.out)")
        #expect(listed.err.contains("1 saved prompt,"), "\(listed.err)")
        let cleared = await CapturedConsole.run(["cache", "clear", "--dir", directory])
        #expect(cleared.out.contains("Removed 1 saved prompt "), "\(cleared.out)")
        #expect(PromptCacheListing.entries(in: directory).isEmpty)
        let unknown = await CapturedConsole.run(["cache", "drop"])
        #expect(unknown.status != .success)
    }

    /// LOOPL_PROMPT_CACHE_DIR moves the prompt cache: `loopl cache ls` without `--dir` lists it.
    @Test func theEnvironmentMovesTheCache() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-cache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = PromptCacheFile.encode(key: "k", tokens: Array(1...200), state: [UInt8](repeating: 7, count: 64))
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/moved.bin"))
        let captured = CapturedConsole()
        let status = await withEnvironment(["LOOPL_PROMPT_CACHE_DIR": directory]) {
            await CLI.run(["cache", "ls"], console: captured.console)
        }
        #expect(status == .success && captured.out.contains("moved.bin"), "\(captured.out)\(captured.err)")
        #expect(await withEnvironment(["LOOPL_PROMPT_CACHE_DIR": nil]) { LooplHome.promptCacheDirectory } == LooplHome.directory + "/prompt-cache")
    }

    /// The prompt cache is on by default: `loopl run` with neither a config nor
    /// LOOPL_PROMPT_CACHE saves its prompt under LOOPL_HOME/prompt-cache, and the next run with
    /// the same system prompt loads it instead of evaluating it.
    @Test(.timeLimit(.minutes(5)))
    func thePromptCacheIsOnByDefault() throws {
        let model = LooplHome.defaultModel
        try #require(FileManager.default.fileExists(atPath: model), "run scripts/bootstrap first")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-default-cache-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "LOOPL_PROMPT_CACHE")
        environment.removeValue(forKey: "LOOPL_PROMPT_CACHE_DIR")
        environment["LOOPL_HOME"] = home
        environment["LOOPL_MODEL"] = model
        let system = (1...12).map { "Rule \($0): answer in plain words and keep to the point of item \($0). " }.joined()
        var cached: [Int] = []
        for _ in 0..<2 {
            let run = Process()
            run.executableURL = URL(fileURLWithPath: ChatTests.binary)
            run.arguments = ["run", "--temperature", "0", "--max-tokens", "2", "--json", "--system", system, "Hi"]
            run.environment = environment
            run.currentDirectoryURL = URL(fileURLWithPath: home)
            let out = Pipe()
            run.standardOutput = out
            run.standardError = FileHandle.nullDevice
            try run.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            #expect(run.terminationStatus == 0, "\(text)")
            let metrics = try RunTests.events(text).last { $0["event"] == "metrics" }?["metrics"]
            cached.append(metrics?["cachedPromptTokens"]?.intValue ?? -1)
        }
        #expect(!PromptCacheListing.entries(in: home + "/prompt-cache").isEmpty, "nothing was saved under LOOPL_HOME/prompt-cache")
        #expect(cached[0] == 0 && cached[1] >= 200, "cached prompt tokens of the two runs: \(cached)")
    }
}
