import Loopl

/// Turns a conversation into the text a model was trained on.
struct LlamaPrompt: Sendable {
    let bosText: String?
    let addsBOS: Bool

    init(weights: LlamaWeights) {
        addsBOS = weights.addsBOS
        bosText = weights.metadata("tokenizer.ggml.bos_token_id").flatMap(Int32.init).map {
            String(decoding: weights.piece($0), as: UTF8.self)
        }
    }

    /// The tool-call family the model writes.
    var toolCallFormat: ToolCallFormat { .hermes }

    /// ChatML, with tools described Hermes-style in the system turn.
    func render(messages: [Message], tools: [ToolSpec]) throws -> String {
        var out = ""
        var turns = messages[...]
        var system = ""
        if case .system(let text)? = turns.first {
            system = text
            turns = turns.dropFirst()
        }
        if !tools.isEmpty {
            system += (system.isEmpty ? "" : "\n\n") + LlamaPrompt.toolInstructions(tools)
        }
        if !system.isEmpty { out += "<|im_start|>system\n\(system)<|im_end|>\n" }
        for message in turns {
            switch message {
            case .system(let text), .user(let text):
                out += "<|im_start|>\(message.role)\n\(text)<|im_end|>\n"
            case .assistant(let text, let calls):
                out += "<|im_start|>assistant\n\(text)"
                for call in calls {
                    let body: JSONValue = ["name": .string(call.name), "arguments": .object(call.arguments)]
                    out += (out.hasSuffix("\n") ? "" : "\n") + "<tool_call>\n\(body.jsonText(style: .python))\n</tool_call>"
                }
                out += "<|im_end|>\n"
            case .tool(let result, _, _):
                out += "<|im_start|>user\n<tool_response>\n\(result)\n</tool_response><|im_end|>\n"
            }
        }
        return out + "<|im_start|>assistant\n"
    }

    /// The Hermes-style tool description added to the system prompt when the template has none.
    static func toolInstructions(_ tools: [ToolSpec]) -> String {
        let list = tools.map { $0.openAIValue.jsonText(style: .python) }.joined(separator: "\n")
        return """
            # Tools

            You may call one or more functions to assist with the user query.

            You are provided with function signatures within <tools></tools> XML tags:
            <tools>
            \(list)
            </tools>

            For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
            <tool_call>
            {"name": <function-name>, "arguments": <args-json-object>}
            </tool_call>
            """
    }

    /// Removes a BOS text that the template wrote when the tokenizer adds BOS by itself.
    func stripLeadingBOS(_ text: String) -> String {
        guard addsBOS, let bosText, !bosText.isEmpty, text.hasPrefix(bosText) else { return text }
        return String(text.dropFirst(bosText.count))
    }
}
