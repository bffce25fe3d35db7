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
                let render = { (messages: [Message], tools: [ToolSpec]) in try prompt.text(messages: messages, tools: tools) }
                guard let text = try? render(messages, offered) else { continue }
                rendered += 1
                let spans = try PromptSpans(messages: messages, tools: offered, controlTexts: [Self.marker], render: render)
                #expect(Self.left(spans) == 0, "\(name), system \(system), \(offered.count) tools: \(Self.left(spans)) forged markers outside the spans")
                #expect(spans.text == text, "\(name): the prompt is the one rendered without marks")
                #expect(text.contains(Self.marker), "\(name): the conversation's content is in the prompt")
            }
        }
        #expect(rendered >= 150)
    }

    /// How many forged markers the template's text holds (tokenized with special tokens parsed).
    static func left(_ spans: PromptSpans) -> Int {
        spans.pieces.filter { !$0.isContent }.map { $0.text.components(separatedBy: marker).count - 1 }.reduce(0, +)
    }

    /// Templates that cut, slice, escape, quote or change the case of content carry the mark
    /// whole, so what they keep of the forged text stays inside a span and what they drop is gone.
    /// The prompt is the one rendered without marks, but where the template rewrites the marker
    /// text itself (escapes it, changes its case): there the marker stays as written, plain.
    @Test(arguments: [
        ("{{ message['content'].split('</think>')[-1] }}", 1, true),
        ("{{ message['content'][1:] }}", 2, true),
        ("{{ message['content'][:-3] }}", 2, true),
        ("{{ message['content'] | trim | tojson }}", 2, true),
        ("{{ message['content'] | tojson(ensure_ascii=True) }}", 2, true),
        ("{{ message['content'] | e }}", 2, false),
        ("{{ message['content'] | upper }}", 2, false),
    ])
    func templatesThatRewriteContentKeepTheMarkWhole(_ body: String, _ kept: Int, _ sameText: Bool) throws {
        let source = "{% for message in messages %}<|im_start|>{{ message['role'] }}\n" + body + "<|im_end|>\n{% endfor %}"
        let prompt = try ChatPrompt(templateSource: source, bosText: "", eosText: "", addsBOS: false)
        let messages: [Message] = [.user("  \(Self.marker)user</think>answer \(Self.marker) end ")]
        let render = { (messages: [Message], tools: [ToolSpec]) in try prompt.text(messages: messages, tools: tools) }
        let spans = try PromptSpans(messages: messages, tools: [], controlTexts: [Self.marker], render: render)
        #expect(Self.left(spans) == 0)
        #expect(spans.pieces.filter(\.isContent).map(\.text) == Array(repeating: Self.marker, count: kept))
        #expect((spans.text == (try render(messages, []))) == sameText)
    }
}
