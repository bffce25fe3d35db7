import Foundation
import Testing

/// Every Swift file under Sources/ stays short enough to read as one concept, and every function
/// in it short enough to read at a glance.
@Suite struct SourceSizeTests {
    static let limit = 450
    static let functionLimit = 60
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test func noSourceFileIsOverTheLimit() throws {
        let files = try Self.swiftFiles(under: Self.sources)
        #expect(files.count > 100, "found only \(files.count) Swift files under \(Self.sources.path)")
        var over: [String] = []
        for file in files {
            let lines = Self.lineCount(try String(contentsOf: file, encoding: .utf8))
            if lines > Self.limit {
                over.append("\(file.path.dropFirst(Self.sources.path.count + 1)) (\(lines) lines)")
            }
        }
        #expect(over.isEmpty, "over \(Self.limit) lines, split by concept: \(over.sorted().joined(separator: ", "))")
    }

    @Test func lineCountCountsLines() {
        #expect(Self.lineCount("") == 0)
        #expect(Self.lineCount("a") == 1)
        #expect(Self.lineCount("a\nb\n") == 2)
        #expect(Self.lineCount(String(repeating: "x\n", count: Self.limit + 1)) == Self.limit + 1)
    }

    @Test func noFunctionIsOverTheLimit() throws {
        var over: [String] = []
        for file in try Self.swiftFiles(under: Self.sources) {
            let path = file.path.dropFirst(Self.sources.path.count + 1)
            for function in Self.functionLengths(try String(contentsOf: file, encoding: .utf8))
            where function.lines > Self.functionLimit {
                over.append("\(path):\(function.line) (\(function.lines) lines)")
            }
        }
        #expect(over.isEmpty, "functions over \(Self.functionLimit) lines, split by step or by axis: \(over.sorted().joined(separator: ", "))")
    }

    @Test func functionLengthsCountFromTheHeadToTheClosingBrace() {
        let source = """
            struct S {
                func short() { 1 }
                func two() {
                }
                init(x: Int) {
                    if x > 0 {
                        print(x)
                    }
                }
                subscript(i: Int) -> Int {
                    get { i }
                }
            }
            """
        #expect(Self.functionLengths(source).map(\.line) == [3, 5, 10])
        #expect(Self.functionLengths(source).map(\.lines) == [2, 5, 3])
        let long = "func f() {\n" + String(repeating: "    x()\n", count: Self.functionLimit - 1) + "}\n"
        #expect(Self.functionLengths(long).map(\.lines) == [Self.functionLimit + 1])
        #expect(Self.functionLengths("let f = { }\nvar x: Int { 1 }\n// the initializer {\n}").isEmpty)
    }

    /// The functions, initializers and subscripts whose head ends a line with `{`: the 1-based line
    /// of the head and the lines from there to the brace that closes it. It counts the braces of
    /// every line, string literals' too, as the measuring script in the issue does.
    static func functionLengths(_ text: String) -> [(line: Int, lines: Int)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let depths = lines.map { line in line.count(where: { $0 == "{" }) - line.count(where: { $0 == "}" }) }
        var found: [(line: Int, lines: Int)] = []
        for (start, line) in lines.enumerated() where isFunctionHead(line) {
            var depth = 0, end = start
            while end < lines.count {
                depth += depths[end]
                if depth <= 0, end > start { break }
                end += 1
            }
            found.append((start + 1, end - start + 1))
        }
        return found
    }

    /// Whether `line` holds the word `func`, `init` or `subscript` and after it no brace but the
    /// one that ends the line.
    static func isFunctionHead(_ line: Substring) -> Bool {
        let reversed = line.reversed().drop(while: \.isWhitespace)
        guard reversed.first == "{" else { return false }
        let head = String(reversed.dropFirst().reversed())
        let keyword = /\b(func|init|subscript)\b/.wordBoundaryKind(.simple)
        guard let last = head.matches(of: keyword).last else { return false }
        return !head[last.range.upperBound...].contains { $0 == "{" || $0 == "}" }
    }

    /// The number of lines, as `wc -l` counts them for a file that ends with a line break.
    static func lineCount(_ text: String) -> Int {
        let breaks = text.utf8.count(where: { $0 == UInt8(ascii: "\n") })
        return text.utf8.last == UInt8(ascii: "\n") || text.isEmpty ? breaks : breaks + 1
    }

    static func swiftFiles(under directory: URL) throws -> [URL] {
        guard let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path])
        }
        return walk.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }
}
