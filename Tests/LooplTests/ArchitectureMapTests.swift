import Foundation
import Testing

/// The map of the modules stays true: Architecture.md's arrows and README's target table name
/// exactly the targets of Package.swift, with exactly their dependencies.
@Suite struct ArchitectureMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Each target of a manifest's text, with the names in its `dependencies` (conditional ones too).
    static func targets(ofManifest text: String) -> [String: Set<String>] {
        let matches = text.matches(of: /\.(target|executableTarget|testTarget|systemLibrary)\(name: "([^"]+)"/)
        var targets: [String: Set<String>] = [:]
        for (index, match) in matches.enumerated() {
            let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : text.endIndex
            let declared = text[match.range.upperBound..<end]
            var dependencies: Set<String> = []
            if let list = declared.range(of: "dependencies:") {
                let rest = declared[list.upperBound...]
                let stop = ["swiftSettings:", "exclude:", "resources:"].compactMap { rest.range(of: $0)?.lowerBound }.min() ?? rest.endIndex
                dependencies = Set(rest[..<stop].matches(of: /"([^"]+)"/).map { String($0.output.1) })
            }
            targets[String(match.output.2)] = dependencies
        }
        return targets
    }

    /// The arrows of a page's code blocks: `Name ──> A, B` or `Name ──> (nothing)`, one a line.
    static func arrows(ofPage text: String) -> [String: Set<String>] {
        var arrows: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") {
            guard let match = line.wholeMatch(of: /([A-Za-z-]+) ─+> (.+)/) else { continue }
            let list = match.output.2.trimmingCharacters(in: .whitespaces)
            arrows[String(match.output.1)] = list == "(nothing)" ? [] : Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return arrows
    }

    /// The `Sources/NAME/` folders README's table of targets names.
    static func tableTargets(ofReadme text: String) -> Set<String> {
        guard let start = text.range(of: "```\nSources/Loopl/"), let end = text[start.upperBound...].range(of: "```") else { return [] }
        return Set(text[start.lowerBound..<end.lowerBound].matches(of: /Sources\/([A-Za-z-]+)\//).map { String($0.output.1) })
    }

    @Test func architectureArrowsAreThePackagesTargetsAndDependencies() throws {
        let manifest = Self.targets(ofManifest: try Self.read("Package.swift"))
        #expect(manifest.count > 30 && manifest["LooplBench"] == ["Loopl", "LooplHTTP", "LooplLlama", "LooplServer"], "\(manifest)")
        let page = Self.arrows(ofPage: try Self.read("Sources/Loopl/Loopl.docc/Architecture.md"))
        for name in Set(manifest.keys).union(page.keys).sorted() {
            #expect(page[name] == manifest[name], "\(name): Architecture.md says \(page[name].map { $0.sorted() } ?? []), Package.swift \(manifest[name].map { $0.sorted() } ?? [])")
        }
    }

    @Test func readmeTableNamesEveryTargetOutsideTests() throws {
        let manifest = Self.targets(ofManifest: try Self.read("Package.swift"))
        let sources = Set(manifest.keys.filter { !$0.hasSuffix("Tests") })
        let table = Self.tableTargets(ofReadme: try Self.read("README.md"))
        #expect(table == sources, "README's table lacks \((sources.subtracting(table)).sorted()), names \((table.subtracting(sources)).sorted()) that is no target")
    }

    /// Every `Sources/...` folder or file the page names (where a new dialect goes, where a request
    /// is routed) exists, so a move that leaves the map behind fails here.
    @Test func everySourcePathThePageNamesExists() throws {
        let page = try Self.read("Sources/Loopl/Loopl.docc/Architecture.md")
        let paths = Self.sourcePaths(ofPage: page)
        #expect(paths.contains("Sources/LooplAPI/ServeRoutes.swift") && paths.contains("Sources/LooplAPI/Serving"), "\(paths)")
        for path in paths {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path), "Architecture.md names \(path), which is not in the tree")
        }
    }

    /// The `Sources/...` paths in backquotes or parentheses of a page.
    static func sourcePaths(ofPage text: String) -> Set<String> {
        Set(text.matches(of: /[`(](Sources\/[A-Za-z0-9_+.\/-]+)[`)]/).map { String($0.output.1) })
    }

    /// The readers see what they are meant to: a dependency added to the manifest, or an arrow
    /// dropped from the page, is a difference.
    @Test func theReadersSeeADifference() {
        let manifest = #"""
            .target(name: "A", dependencies: ["B"] + (flag ? ["C"] : []), swiftSettings: strict),
            .target(name: "B", exclude: ["x"]),
            .testTarget(name: "ATests", dependencies: ["A"], swiftSettings: strict.map { $0 }),
            """#
        #expect(Self.targets(ofManifest: manifest) == ["A": ["B", "C"], "B": [], "ATests": ["A"]])
        #expect(Self.arrows(ofPage: "```\nA ──> B, C\nB ────> (nothing)\n```") == ["A": ["B", "C"], "B": []])
        #expect(Self.sourcePaths(ofPage: "in `Sources/A/B.swift` (Sources/C/) and Sources/D") == ["Sources/A/B.swift", "Sources/C/"])
        #expect(Self.tableTargets(ofReadme: "x\n```\nSources/Loopl/  a  Sources/A-b/ b\n```\nSources/Z/") == ["Loopl", "A-b"])
    }
}
