import Foundation
@testable import Loopl
import Testing

/// The built-in tool sets are declared once: each set's tool names are the names of the tools it
/// makes, and no other source pairs a set's name with its tools.
@Suite struct BuiltInToolSetTests {
    @Test func eachSetNamesTheToolsItMakes() throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        #expect(BuiltInToolSet.names == ["calc", "time", "files"])
        for set in BuiltInToolSet.all {
            #expect(try set.tools(root: fixture.root).map(\.name) == set.toolNames, "\(set.name)")
            for tool in set.toolNames { #expect(BuiltInToolSet.holding(tool)?.name == set.name, "\(tool)") }
        }
        #expect(BuiltInToolSet.named("files")?.toolNames == ["list_files", "read_file"])
        #expect(BuiltInToolSet.named("weather") == nil && BuiltInToolSet.holding("weather") == nil)
        #expect(BuiltInToolSet.listed() == "calc, time, files" && BuiltInToolSet.listed(last: " or ") == "calc, time or files")
    }

    /// The sets' names as a list, or a set's name beside a tool's, are spelled in the declaration alone.
    @Test func noOtherSourceSpellsTheSets() throws {
        let sources = SourceSizeTests.sources
        guard let walk = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { throw CocoaError(.fileReadNoSuchFile) }
        let files = walk.compactMap { $0 as? URL }.filter { ["swift", "js", "html"].contains($0.pathExtension) }
        #expect(files.count > 100)
        var spelled: [String] = []
        for file in files where file.lastPathComponent != "BuiltInToolSet.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            if Self.spellsTheSets(text) { spelled.append(String(file.path.dropFirst(sources.path.count + 1))) }
        }
        #expect(spelled.isEmpty, "declare built-in tool sets in BuiltInToolSet alone: \(spelled)")
        #expect(Self.spellsTheSets(#"["calculator": "calc"]"#) && Self.spellsTheSets("use calc, time or files."))
        #expect(!Self.spellsTheSets(#"name: "calculator""#))
    }

    /// True when `text` lists the sets' names, or quotes a set's name and one of its tools' names.
    static func spellsTheSets(_ text: String) -> Bool {
        if text.contains("calc, time") || text.contains("calc,time") { return true }
        return BuiltInToolSet.all.contains { set in
            text.contains("\"\(set.name)\"") && set.toolNames.contains { text.contains("\"\($0)\"") }
        }
    }
}
