import Foundation
import Testing

/// The folders of Sources/Loopl are layers: when a folder uses a type declared in another, that
/// other folder uses nothing of the first, directly or through others. Files at the top of
/// Sources/Loopl count as the folder ".". `LOOPL_PRINT_LAYERS=1` prints which folder uses which.
@Suite struct FolderLayerTests {
    /// For each folder, the folders whose types it uses, with the type names.
    typealias Graph = [String: [String: Set<String>]]

    static let core = SourceSizeTests.sources.appendingPathComponent("Loopl")

    @Test func foldersHaveNoCycle() throws {
        let graph = try Self.references(in: Self.core)
        #expect(graph.count > 8, "found only the folders \(graph.keys.sorted())")
        if ProcessInfo.processInfo.environment["LOOPL_PRINT_LAYERS"] != nil {
            for (folder, uses) in graph.sorted(by: { $0.key < $1.key }) {
                for (used, names) in uses.sorted(by: { $0.key < $1.key }) {
                    print("\(folder) -> \(used): \(names.sorted().joined(separator: " "))")
                }
            }
        }
        if let cycle = Self.cycle(in: graph) {
            let steps = zip(cycle, cycle.dropFirst()).map { from, to in
                "\(from) -> \(to) (\(graph[from, default: [:]][to, default: []].sorted().joined(separator: ", ")))"
            }
            Issue.record("the folders of Sources/Loopl form a cycle; move a type to where it belongs: \(steps.joined(separator: "; "))")
        }
    }

    @Test func grammarUsesNothingOfToolCalls() throws {
        let graph = try Self.references(in: Self.core)
        #expect(graph["Grammar"]?["ToolCalls"] == nil, "Grammar uses \(graph["Grammar"]?["ToolCalls"]?.sorted() ?? [])")
    }

    @Test func aCycleIsFoundAndALayeringIsNot() {
        #expect(Self.cycle(in: ["A": ["B": ["X"]], "B": ["C": ["Y"]], "C": ["A": ["Z"]]]) == ["A", "B", "C", "A"])
        #expect(Self.cycle(in: ["A": ["B": ["X"], "C": ["Y"]], "B": ["C": ["Z"]], "C": [:]]) == nil)
    }

    @Test func declarationsAndUsesAreRead() {
        let text = "public final class Door {}\n    struct Inner {}\n// Window in a comment\nlet x = Wall()"
        #expect(Self.declaredTypes(text) == ["Door"])
        #expect(Self.typeNames(text) == ["Door", "Inner", "Wall"])
    }

    /// Which folders use which folders' types, read from the sources under `directory`.
    static func references(in directory: URL) throws -> Graph {
        var texts: [String: String] = [:]
        for file in try SourceSizeTests.swiftFiles(under: directory) {
            let parts = file.path.dropFirst(directory.path.count + 1).split(separator: "/")
            let folder = parts.count > 1 ? String(parts[0]) : "."
            texts[folder, default: ""] += try String(contentsOf: file, encoding: .utf8) + "\n"
        }
        var home: [String: String] = [:]
        for (folder, text) in texts {
            for name in declaredTypes(text) where home[name] == nil { home[name] = folder }
        }
        var graph: Graph = [:]
        for (folder, text) in texts {
            graph[folder, default: [:]] = [:]
            for name in typeNames(text) {
                guard let owner = home[name], owner != folder else { continue }
                graph[folder, default: [:]][owner, default: []].insert(name)
            }
        }
        return graph
    }

    /// The types declared at the top level of `text` (lines that start with the declaration).
    static func declaredTypes(_ text: String) -> Set<String> {
        let kinds: Set<Substring> = ["struct", "enum", "class", "actor", "protocol", "typealias"]
        var names: Set<String> = []
        for line in text.split(separator: "\n") where !(line.first?.isWhitespace ?? true) {
            let words = line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
            if let kind = words.firstIndex(where: kinds.contains), kind + 1 < words.count {
                names.insert(String(words[kind + 1]))
            }
        }
        return names
    }

    /// The capitalised identifiers of `text` outside `//` comments.
    static func typeNames(_ text: String) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(separator: "\n") {
            let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            for word in code.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
            where word.first?.isUppercase == true {
                names.insert(String(word))
            }
        }
        return names
    }

    /// A path of folders that returns to its start, or nil when the folders are layered.
    static func cycle(in graph: Graph) -> [String]? {
        var done: Set<String> = []
        var path: [String] = []
        func visit(_ folder: String) -> [String]? {
            if let start = path.firstIndex(of: folder) { return Array(path[start...]) + [folder] }
            guard !done.contains(folder) else { return nil }
            path.append(folder)
            defer { path.removeLast() }
            for next in graph[folder, default: [:]].keys.sorted() {
                if let found = visit(next) { return found }
            }
            done.insert(folder)
            return nil
        }
        for folder in graph.keys.sorted() {
            if let found = visit(folder) { return found }
        }
        return nil
    }
}
