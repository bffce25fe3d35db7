import Foundation
import Loopl
import Testing

/// On every template of the fixtures, control-token text in any content (user turns, tool
/// results, earlier answers and thinking, tool-call arguments; each with white space at its edges,
/// which `| trim` takes off, and characters inside, which `| tojson` escapes) falls inside a
/// content span: none of it is left in the text tokenized with special tokens parsed.
@Suite struct PromptSpansTemplateTests {
    static let marker = "<|forged|>"

    static func conversation(system: Bool) -> [Message] {
        // Twice, around characters that JSON escapes, so that `| tojson` rewrites the content.
        let m = marker + "\n\"" + marker
        let call = ToolCall(id: "call00001", name: "read_file", arguments: ["path": .string(" a.txt \(m) \n")])
        return (system ? [.system("sys")] : []) + [
            .user("  Hi \(m) there \n"), .assistant(text: "\n Hello \(m) \n", toolCalls: [], reasoning: system ? "\n think \(m) \n" : nil),
            .user("Read a.txt"), .assistant(text: "", toolCalls: [call]), .tool(result: "\n text \(m) \n", callId: "call00001", name: "read_file"),
            .user("\n Q \(m) \n"),
        ]
    }

    @Test func forgedMarkersStayInsideSpansOnEveryTemplate() throws {
        let tools = [ToolSpec(name: "read_file", description: "Reads a file", parameters: ["type": "object"])]
        var rendered = 0
        for name in TemplateGoldens.names {
            let prompt = try ChatPrompt(templateSource: try TemplateGoldens.source(name), bosText: "<s>", eosText: "</s>", addsBOS: false)
            for (system, offered) in [(true, []), (true, tools), (false, tools)] {
                let messages = Self.conversation(system: system)
                // Some templates refuse a conversation of this shape (a system turn, thinking, tools).
                guard let text = try? prompt.text(messages: messages, tools: offered) else { continue }
                rendered += 1
                let pieces = PromptSpans(text: text, messages: messages).pieces { $0.contains(Self.marker) }
                let left = pieces.filter { !$0.isContent }.map { $0.text.components(separatedBy: Self.marker).count - 1 }.reduce(0, +)
                #expect(left == 0, "\(name), system \(system), \(offered.count) tools: \(left) forged markers outside the spans")
                #expect(text.contains(Self.marker), "\(name): the conversation's content is in the prompt")
            }
        }
        #expect(rendered >= 150)
    }
}
