import Loopl
import Testing

/// One row of a family's case table: a model's text and what the parser must make of it.
struct ParseCase: Sendable, CustomTestStringConvertible {
    struct Call: Sendable, Hashable {
        let name: String
        let arguments: JSONObject
    }

    let name: String
    let format: ToolCallFormat
    let text: String
    let content: String
    let calls: [Call]
    var reasoning: String?
    var tools: Set<String>?
    var rejected: [String] = []
    var startsInReasoning: Bool?
    /// Whether `.auto` must give the same result.
    var sameUnderAuto = true

    var testDescription: String { "\(format.rawValue): \(name)" }

    func parser(_ format: ToolCallFormat? = nil) -> ToolCallParser {
        ToolCallParser(format: format ?? self.format, toolNames: tools, startsInReasoning: startsInReasoning)
    }

    /// Checks a result against this case.
    func check(_ result: ToolCallParser.Result, under format: ToolCallFormat, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.content == content, "\(name) [\(format)] content", sourceLocation: sourceLocation)
        #expect(result.toolCalls.map { Call(name: $0.name, arguments: $0.arguments) } == calls,
                "\(name) [\(format)] calls", sourceLocation: sourceLocation)
        #expect(result.reasoning == reasoning, "\(name) [\(format)] reasoning", sourceLocation: sourceLocation)
        #expect(result.rejected.map(\.name) == rejected, "\(name) [\(format)] rejected", sourceLocation: sourceLocation)
    }
}

func call(_ name: String, _ arguments: JSONObject = [:]) -> ParseCase.Call {
    ParseCase.Call(name: name, arguments: arguments)
}

extension ToolCallParser.Result {
    /// The result with call ids blanked, for comparing runs (fresh ids are random).
    var withoutIds: ToolCallParser.Result {
        var copy = self
        copy.toolCalls = toolCalls.map { ToolCall(id: "", name: $0.name, arguments: $0.arguments) }
        return copy
    }
}
