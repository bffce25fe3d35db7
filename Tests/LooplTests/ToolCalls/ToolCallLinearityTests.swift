import Loopl
import Testing

/// Markup left open many times over is read in work linear in its length: the bytes that the
/// readers' searches for closing tags look at grow about 4× for 4× the text, not 16×.
@Suite struct ToolCallLinearityTests {
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        let format: ToolCallFormat
        let unit: String
        var testDescription: String { "\(name) [\(format)]" }
    }

    static let shapes: [Shape] = [
        Shape(name: "unclosed <parameter= in <tool_call>", format: .qwen3Coder, unit: "<tool_call>\n<function=f>\n<parameter=x>\nvalue\n"),
        Shape(name: "unclosed <parameter= in <tool_call>", format: .auto, unit: "<tool_call>\n<function=f>\n<parameter=x>\nvalue\n"),
        Shape(name: "unclosed <parameter= alone", format: .qwen3Coder, unit: "<function=f><parameter=x>v"),
        Shape(name: "unclosed <parameter= alone", format: .auto, unit: "<function=f><parameter=x>v"),
        Shape(name: "unclosed invoke parameter", format: .minimaxM2, unit: "<minimax:tool_call><invoke name=\"f\"><parameter name=\"p\">v"),
    ]

    @Test(arguments: shapes)
    func openTagsScanLinearly(_ shape: Shape) {
        let parser = ToolCallParser(format: shape.format)
        let small = String(repeating: shape.unit, count: 300)
        // A tail that closes nothing, so that every block fails at the end.
        let tail = "<parameter=\u{1}"
        let once = parser.scannedBytes(parsing: small + tail)
        let fourTimes = parser.scannedBytes(parsing: String(repeating: shape.unit, count: 1200) + tail)
        #expect(once > 0)
        #expect(fourTimes <= once * 5, "4n scanned \(fourTimes) bytes, n scanned \(once)")
    }

    @Test func unclosedParametersStayText() {
        let text = String(repeating: "<function=f><parameter=x>v", count: 50) + "<parameter=\u{1}"
        #expect(ToolCallParser(format: .qwen3Coder).parse(text).content == text)
    }
}
