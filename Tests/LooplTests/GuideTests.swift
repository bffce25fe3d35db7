import Foundation
import Testing

/// The guide's code is the example's code, which the test command builds and runs.
@Suite struct GuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func gettingStartedShowsTheExampleVerbatim() throws {
        let page = try Self.read("Sources/Loopl/Loopl.docc/GettingStarted.md")
        let example = try Self.read("Examples/WeatherAgent/Sources/WeatherAgent/main.swift")
        #expect(example.contains("LlamaModel.start()") && example.contains("Agent(model:"))
        #expect(page.contains("```swift\n" + example + "```"), "GettingStarted.md's agent code differs from Examples/WeatherAgent")
    }

    @Test func theCatalogHasItsPages() throws {
        for page in ["Loopl", "GettingStarted", "ImplementingAModel", "ChoosingABackend", "Errors"] {
            let text = try Self.read("Sources/Loopl/Loopl.docc/\(page).md")
            #expect(text.hasPrefix("# "), "\(page).md has no title")
        }
    }
}
