import Foundation
import Loopl
import Testing

/// Random and mutated inputs: the parser must neither crash nor hang, and streaming must still
/// agree with parsing the whole text. LOOPL_FUZZ_SCALE=N runs N times as many inputs.
@Suite struct ToolCallFuzzTests {
    static let scale = max(1, Int(ProcessInfo.processInfo.environment["LOOPL_FUZZ_SCALE"] ?? "") ?? 1)

    static let fragments = [
        "<tool_call>", "</tool_call>", "{", "}", "[", "]", "\"", "\"name\"", ": ", ", ", "\"arguments\"", "<think>", "</think>",
        "[TOOL_CALLS]", "[ARGS]", "<function=", "<parameter=", "</parameter>", "</function>", ">", "<", "f", "(", ")", "=",
        "<|channel|>", "<|message|>", "<|call|>", " to=functions.f", "<|tool_call>", "call:", "<|\"|>", "<arg_key>", "<arg_value>",
        "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", ">>>", "all\n", "functools", "```", "\n", " ", "é", "😀",
        "<|python_tag|>", "<|START_ACTION|>", "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>",
        "<minimax:tool_call>", "<invoke name=\"", "<seed:think>", "<|tool_call_start|>", "True", "None", "1", "-", ".", "\\",
        "[/THINK]", "<|END_THINKING|>", "[BEGIN FINAL RESPONSE]", "<channel|>", "<|start|>assistant", " to=assistant", " to=python",
        "\"parameters\"", ";", "<|eot_id|>", "<|CHATBOT_TOKEN|>", "special_function\n",
    ]

    static func mutate(_ text: String, using rng: inout SeededGenerator) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int(rng.next() % 4 + 1) {
            let at = scalars.isEmpty ? 0 : Int(rng.next() % UInt64(scalars.count + 1))
            switch rng.next() % 5 {
            case 0 where !scalars.isEmpty && at < scalars.count:
                let end = min(scalars.count, at + Int(rng.next() % 8) + 1)
                scalars.removeSubrange(at..<end)
            case 1:
                let fragment = fragments[Int(rng.next() % UInt64(fragments.count))]
                scalars.insert(contentsOf: fragment.unicodeScalars, at: at)
            case 2:
                scalars = Array(scalars[..<at])
            case 3 where at < scalars.count:
                let end = min(scalars.count, at + Int(rng.next() % 16) + 1)
                scalars.insert(contentsOf: scalars[at..<end], at: end)
            default:
                scalars.insert(Unicode.Scalar(UInt8(rng.next() % 95 + 32)), at: at)
            }
        }
        var out = ""
        out.unicodeScalars.append(contentsOf: scalars)
        return out
    }

    static func randomText(using rng: inout SeededGenerator) -> String {
        (0..<Int(rng.next() % 40)).map { _ in fragments[Int(rng.next() % UInt64(fragments.count))] }.joined()
    }

    /// Parses `text` whole and in random pieces; returns whether both agree.
    static func agrees(_ text: String, format: ToolCallFormat, tools: Set<String>?, using rng: inout SeededGenerator) -> Bool {
        let whole = ToolCallParser(format: format, toolNames: tools).parse(text).withoutIds
        let scalars = text.unicodeScalars.map { String($0) }
        for pieces in [randomSplit(text, using: &rng), scalars] {
            var parser = ToolCallParser(format: format, toolNames: tools)
            var events: [ToolCallParser.Event] = []
            for piece in pieces { events += parser.feed(piece) }
            events += parser.finish()
            if ToolCallParser.result(of: events).withoutIds != whole { return false }
        }
        return true
    }

    @Test func mutatedCasesAgreeAndFinish() {
        var rng = SeededGenerator(seed: 42 &+ UInt64(Self.scale) &+ 0x9E37_79B9_7F4A_7C15)
        let clock = ContinuousClock()
        let start = clock.now
        var disagreements: [String] = []
        for round in 0..<(10 * Self.scale) {
            for row in ToolCallCases.all {
                let text = Self.mutate(row.text, using: &rng)
                let format = round % 2 == 0 ? row.format : .auto
                if !Self.agrees(text, format: format, tools: round % 3 == 0 ? ["f"] : nil, using: &rng) {
                    disagreements.append("[\(format)] \(text.debugDescription)")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        #expect(clock.now - start < .seconds(60 * Self.scale))
    }

    @Test func randomFragmentsAgreeAndFinish() {
        var rng = SeededGenerator(seed: 7 &+ UInt64(Self.scale) &+ 0x9E37_79B9_7F4A_7C15)
        var disagreements: [String] = []
        let formats = ToolCallFormat.allCases
        for n in 0..<(1_500 * Self.scale) {
            let text = Self.randomText(using: &rng)
            let format = formats[n % formats.count]
            if !Self.agrees(text, format: format, tools: nil, using: &rng) {
                disagreements.append("[\(format)] \(text.debugDescription)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    @Test func pathologicalInputsFinishQuickly() {
        let inputs = [
            String(repeating: "[", count: 20_000),
            String(repeating: "{\"a\":", count: 5_000),
            "<tool_call>" + String(repeating: "{\"name\": [", count: 3_000),
            String(repeating: "<tool_call>", count: 3_000),
            String(repeating: "<", count: 20_000),
            "[f(a=" + String(repeating: "[", count: 5_000),
            "<|tool_call>call:f" + String(repeating: "{a:", count: 5_000),
            String(repeating: "<think>", count: 3_000),
            "x " + String(repeating: "{\"name\": \"f\", \"parameters\": {}} ", count: 3_000) + "end",
            "<think>" + String(repeating: "<tool_call>{\"name\": [", count: 2_000),
            String(repeating: "a</think>", count: 5_000),
        ]
        let clock = ContinuousClock()
        for input in inputs {
            let start = clock.now
            let result = ToolCallParser().parse(input)
            #expect(result.toolCalls.isEmpty)
            #expect(clock.now - start < .seconds(10), "\(input.prefix(20))")
        }
    }
}
