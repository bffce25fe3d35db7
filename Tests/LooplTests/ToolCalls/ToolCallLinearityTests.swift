import Loopl
import Testing

/// Markup left open many times over is read in work linear in its length: the bytes that the
/// scans for markers and the readers' searches examine grow about 4× for 4× the text, not 16×.
@Suite struct ToolCallLinearityTests {
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        let format: ToolCallFormat
        let unit: String
        /// What comes before the repeated units.
        var prefix = ""
        var testDescription: String { "\(name) [\(format)]" }
    }

    static let shapes: [Shape] = [
        Shape(name: "unclosed <parameter= in <tool_call>", format: .qwen3Coder, unit: "<tool_call>\n<function=f>\n<parameter=x>\nvalue\n"),
        Shape(name: "unclosed <parameter= in <tool_call>", format: .auto, unit: "<tool_call>\n<function=f>\n<parameter=x>\nvalue\n"),
        Shape(name: "unclosed <parameter= alone", format: .qwen3Coder, unit: "<function=f><parameter=x>v"),
        Shape(name: "unclosed <parameter= alone", format: .auto, unit: "<function=f><parameter=x>v"),
        Shape(name: "unclosed invoke parameter", format: .minimaxM2, unit: "<minimax:tool_call><invoke name=\"f\"><parameter name=\"p\">v"),
        // Held while its closing tag may still come: read again only as it grows by a sixteenth.
        Shape(name: "a call whose closing tag does not come", format: .hermes, unit: "        \n",
              prefix: "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}"),
    ]

    /// Whole and streamed a few bytes at a time (where a stream that reads its held text again
    /// on every delta would be quadratic): the bytes handed in are examined, and 4× the text
    /// examines at most 5× the bytes.
    @Test(arguments: shapes, [Int.max, 7])
    func openTagsScanLinearly(_ shape: Shape, chunk: Int) {
        let parser = ToolCallParser(format: shape.format)
        // A tail that closes nothing, so that every block fails at the end.
        let tail = "<parameter=\u{1}"
        let small = shape.prefix + String(repeating: shape.unit, count: 300) + tail
        let once = parser.examinedBytes(parsing: small, chunk: chunk)
        let fourTimes = parser.examinedBytes(parsing: shape.prefix + String(repeating: shape.unit, count: 1200) + tail, chunk: chunk)
        #expect(once * 2 >= small.utf8.count, "\(small.utf8.count) bytes handed in, \(once) examined")
        #expect(fourTimes <= once * 5, "4n examined \(fourTimes) bytes, n examined \(once)")
    }

    @Test func unclosedParametersStayText() {
        let text = String(repeating: "<function=f><parameter=x>v", count: 50) + "<parameter=\u{1}"
        #expect(ToolCallParser(format: .qwen3Coder).parse(text).content == text)
    }
}

