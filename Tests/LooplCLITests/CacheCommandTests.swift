import Foundation
@testable import LooplCLI
import LooplLlama
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
}
