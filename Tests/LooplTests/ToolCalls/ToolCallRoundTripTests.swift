import Foundation
import Loopl
import Testing

/// The round-trip oracle: assistant turns with calls rendered through the real chat templates of
/// the llama.cpp tree (Tests/Data/ToolCalls/roundtrip-oracle.py writes roundtrip.json there) parse back into the
/// same calls, with the family inferred from the template's markers and with `.auto`.
@Suite struct ToolCallRoundTripTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let template: String
        let markers: String
        let text: String
        let calls: [ParseCase.Call]
        var testDescription: String { template }
    }

    /// Templates that write no calls, or calls in a family this parser does not read, with why.
    static let notRoundTripped: [String: String] = [
        "HuggingFaceTB-SmolLM3-3B.jinja": "the template drops tool calls",
        "LFM2-8B-A1B.jinja": "the template drops tool calls",
        "LFM2.5-Instruct.jinja": "the template drops tool calls",
        "google-gemma-2-2b-it.jinja": "no tool support",
        "ibm-granite-granite-3.3-2B-Instruct.jinja": "the template drops tool calls",
        "llama-cpp-rwkv-world.jinja": "no tool support",
        "microsoft-Phi-3.5-mini-instruct.jinja": "no tool support",
        "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja": "the template drops tool calls",
    ]

    /// Templates that render only the first call of a turn.
    static let firstCallOnly: Set<String> = [
        "openai-gpt-oss-120b.jinja", "GigaChat3-10B-A1.8B.jinja", "GigaChat3.1-10B-A1.8B.jinja",
    ]

    static let rows: [Row] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/ToolCalls/roundtrip.json")
        guard let data = try? Data(contentsOf: url),
              case .array(let items)? = try? JSONValue(parsing: String(decoding: data, as: UTF8.self)) else { return [] }
        return items.compactMap { item in
            guard let template = item["template"]?.stringValue, let text = item["text"]?.stringValue,
                  let markers = item["source_markers"]?.stringValue, let calls = item["calls"]?.arrayValue else { return nil }
            return Row(template: template, markers: markers, text: text, calls: calls.compactMap { call in
                guard let name = call["name"]?.stringValue, let arguments = call["arguments"]?.objectValue else { return nil }
                return ParseCase.Call(name: name, arguments: arguments)
            })
        }
    }()

    @Test func oracleDataIsPresent() {
        #expect(Self.rows.count >= 100)
    }

    @Test(arguments: rows.filter { notRoundTripped[$0.template] == nil })
    func renderedCallsParseBack(_ row: Row) {
        let format = ToolCallFormat(inferringFromTemplate: row.markers)
        #expect(format != .auto, "no family inferred for \(row.template)")
        let expected = Self.firstCallOnly.contains(row.template) ? Array(row.calls.prefix(1)) : row.calls
        // Muse's markers (`to=`, `<|message|>`) are too common for `.auto` to read.
        let formats = format == .muse ? [format] : [format, .auto]
        for parser in formats.map({ ToolCallParser(format: $0) }) {
            let result = parser.parse(row.text)
            #expect(result.toolCalls.map { ParseCase.Call(name: $0.name, arguments: $0.arguments) } == expected,
                    "\(row.template) [\(parser.format)]: \(row.text.debugDescription)")
            var streaming = parser
            var events: [ToolCallParser.Event] = []
            for scalar in row.text.unicodeScalars { events += streaming.feed(String(scalar)) }
            events += streaming.finish()
            #expect(ToolCallParser.result(of: events).withoutIds == result.withoutIds, "\(row.template) streamed")
        }
    }
}
