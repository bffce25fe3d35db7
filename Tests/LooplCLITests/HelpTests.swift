import Foundation
@testable import LooplCLI
import Testing

/// Help texts are golden files: a change to them is deliberate (regenerate with scripts/update-goldens).
@Suite struct HelpTests {
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func golden(_ name: String, _ actual: String) throws {
        let url = goldenFolder.appendingPathComponent(name + ".txt")
        let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        #expect(actual == expected, "loopl \(name) help differs from \(url.path) (scripts/update-goldens rewrites it)")
        // The update still fails the run that writes it: only the next run, against the new file, passes.
        if actual != expected, ProcessInfo.processInfo.environment["LOOPL_UPDATE_GOLDEN"] != nil {
            try actual.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    @Test func topLevelHelp() async throws {
        let result = await CapturedConsole.run(["--help"])
        #expect(result.status == .success)
        #expect(result.err.isEmpty)
        try Self.golden("loopl", result.out)
    }

    @Test(arguments: CLI.commands.map { $0.name })
    func commandHelp(_ name: String) async throws {
        for flag in ["--help", "-h"] {
            let result = await CapturedConsole.run([name, flag])
            #expect(result.status == .success)
            try Self.golden(name, result.out)
        }
    }

    @Test func everyCommandHasAGoldenFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.goldenFolder.path).filter { $0.hasSuffix(".txt") }
        #expect(Set(files) == Set((CLI.commands.map { $0.name } + ["loopl"]).map { $0 + ".txt" }))
    }
}
