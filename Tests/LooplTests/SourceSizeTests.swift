import Foundation
import Testing

/// Every Swift file under Sources/ stays short enough to read as one concept.
@Suite struct SourceSizeTests {
    static let limit = 450
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
