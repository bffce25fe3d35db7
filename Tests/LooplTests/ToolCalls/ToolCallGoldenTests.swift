import Foundation
import Loopl
import Testing

/// Readings of model outputs taken from llama.cpp's own parser tests and code
/// (Tests/Data/ToolCalls/llama-goldens.json, each case naming its source): parsed whole under its
/// format and `.auto`, and streamed at every split into two, one scalar at a time and in random
/// splits with a fixed seed, always to the same result.
@Suite struct ToolCallGoldenTests {
    static let rows = GoldenCase.cases("llama-goldens.json")

    /// Every golden file reads whole: a case with a field missing or mistyped fails here, by its
    /// place in the file, instead of dropping out of the parametrised tests unseen.
    @Test(arguments: GoldenCase.files)
    func goldenFileIsWellFormed(_ file: String) throws {
        #expect(try !GoldenCase.load(file).isEmpty)
    }

    @Test func goldensArePresent() {
        #expect(Self.rows.count >= 150)
        #expect(Set(Self.rows.map(\.id)).count == Self.rows.count)
    }

    @Test(arguments: rows)
    func parsesLikeLlamaCpp(_ row: GoldenCase) {
        for format in row.formats {
            row.check(row.parser(format).parse(row.text), under: format)
        }
    }

    @Test(arguments: rows)
    func streamsToTheSameResult(_ row: GoldenCase) {
        row.checkStreamsAlike()
    }
}

/// One case of a golden file: a model's text, the tools, and what must be read from it.
struct GoldenCase: Sendable, CustomTestStringConvertible {
    let id: String
    let format: ToolCallFormat
    let text: String
    let content: String
    let calls: [ParseCase.Call]
    let reasoning: String?
    let toolNames: Set<String>?
    let tools: [ToolSpec]?
    let rejected: [String]?
    let startsInReasoning: Bool?
    let sameUnderAuto: Bool
    let family: String?
    let source: String?

    var testDescription: String { id }

    /// The formats the case must read alike under.
    var formats: [ToolCallFormat] { sameUnderAuto && format != .auto ? [format, .auto] : [format] }

    static let reasoningMarkers = ["<think>", "</think>", "[THINK]", "[/THINK]", "<seed:think>", "</seed:think>", "<|START_THINKING|>",
                                  "<|END_THINKING|>", "<mm:think>", "</mm:think>", "<|channel>thought", "<channel|>", "<|inner_prefix|>",
                                  "<|inner_suffix|>", "<|open|>think<|sep|>", "<|close|>think<|sep|>", "[BEGIN FINAL RESPONSE]"]

    /// Streamed at every split into two, one scalar at a time and in random splits with a fixed
    /// seed, the case reads as it does whole, with no thinking markup in text events.
    func checkStreamsAlike(sourceLocation: SourceLocation = #_sourceLocation) {
        let scalars = text.unicodeScalars.map { String($0) }
        var rng = SeededGenerator(seed: UInt64(text.utf8.count) &+ 0x5851_F42D_4C95_7F2D)
        var splits: [[String]] = [scalars]
        for cut in 1..<max(1, scalars.count) { splits.append([scalars[..<cut].joined(), scalars[cut...].joined()]) }
        for _ in 0..<8 { splits.append(randomSplit(text, using: &rng)) }
        for format in formats {
            let whole = parser(format).parse(text).withoutIds
            for pieces in splits {
                var parser = parser(format)
                var events: [ToolCallParser.Event] = []
                for piece in pieces { events += parser.feed(piece) }
                events += parser.finish()
                #expect(ToolCallParser.result(of: events).withoutIds == whole, "\(id) [\(format)] split \(pieces.count)",
                        sourceLocation: sourceLocation)
                let shown = events.map { if case .text(let text) = $0 { text } else { "" } }.joined()
                for marker in GoldenCase.reasoningMarkers where shown.contains(marker) && !content.contains(marker) {
                    Issue.record("\(id) [\(format)]: text events carry \(marker)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    func parser(_ format: ToolCallFormat) -> ToolCallParser {
        if let tools { return ToolCallParser(format: format, tools: tools, startsInReasoning: startsInReasoning) }
        return ToolCallParser(format: format, toolNames: toolNames, startsInReasoning: startsInReasoning)
    }

    /// Whether a result reads the case right: content and reasoning (trimmed), calls and, when the
    /// case names them, the rejected calls.
    func matches(_ result: ToolCallParser.Result) -> Bool {
        result.content == content && result.reasoning == reasoning
            && result.toolCalls.map { ParseCase.Call(name: $0.name, arguments: $0.arguments) } == calls
            && (rejected.map { result.rejected.map(\.name) == $0 } ?? true)
    }

    func check(_ result: ToolCallParser.Result, under format: ToolCallFormat, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.content == content, "\(id) [\(format)] content", sourceLocation: sourceLocation)
        #expect(result.toolCalls.map { ParseCase.Call(name: $0.name, arguments: $0.arguments) } == calls,
                "\(id) [\(format)] calls", sourceLocation: sourceLocation)
        #expect(result.reasoning == reasoning, "\(id) [\(format)] reasoning", sourceLocation: sourceLocation)
        if let rejected {
            #expect(result.rejected.map(\.name) == rejected, "\(id) [\(format)] rejected", sourceLocation: sourceLocation)
        }
    }

    /// The golden files of Tests/Data/ToolCalls that ``load(_:)`` reads.
    static let files = ["llama-goldens.json", "heldout.json", "runtime-goldens.json"]

    /// A golden file that does not read whole: which one, and where.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The cases of a golden file for parametrised tests; empty when the file is malformed, which
    /// ``ToolCallGoldenTests/goldenFileIsWellFormed(_:)`` then reports.
    static func cases(_ file: String) -> [GoldenCase] {
        (try? load(file)) ?? []
    }

    /// The cases of a file in Tests/Data/ToolCalls; throws on a missing file or a malformed case.
    static func load(_ file: String) throws -> [GoldenCase] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/ToolCalls/\(file)")
        guard let data = try? Data(contentsOf: url),
              let items = (try? JSONValue(parsing: String(decoding: data, as: UTF8.self)))?["cases"]?.arrayValue else {
            throw Malformed(description: "\(file): not readable, or no \"cases\" array")
        }
        return try items.enumerated().map { index, item in try parse(item, at: "\(file) case \(index) (\(item["id"]?.stringValue ?? "no id"))") }
    }

    /// One case of a golden file; `place` names it in the error.
    private static func parse(_ item: JSONValue, at place: String) throws -> GoldenCase {
        guard let id = item["id"]?.stringValue, let format = item["format"]?.stringValue, let text = item["text"]?.stringValue,
              let content = item["content"]?.stringValue, let calls = item["tool_calls"]?.arrayValue else {
            throw Malformed(description: "\(place): id, format, text, content and tool_calls are required")
        }
        var names: Set<String>?
        var specs: [ToolSpec]?
        switch item["tools"] {
        case .array(let list)?: names = Set(list.compactMap(\.stringValue))
        case .object(let schemas)?:
            specs = schemas.map { ToolSpec(name: $0.key, description: "", parameters: ["type": "object", "properties": $0.value]) }
        default: break
        }
        return GoldenCase(
            id: id, format: ToolCallFormat(rawValue: format), text: text, content: content,
            calls: try calls.map { call in
                guard let name = call["name"]?.stringValue, let arguments = call["arguments"]?.objectValue else {
                    throw Malformed(description: "\(place): a tool call needs a name and an arguments object")
                }
                return ParseCase.Call(name: name, arguments: arguments)
            },
            reasoning: item["reasoning"]?.stringValue, toolNames: names, tools: specs,
            rejected: item["rejected"]?.arrayValue?.compactMap(\.stringValue),
            startsInReasoning: item["starts_in_reasoning"].flatMap { if case .bool(let b) = $0 { b } else { nil } },
            sameUnderAuto: item["auto"] != .bool(false), family: item["family"]?.stringValue,
            source: item["source"]?.stringValue)
    }
}
