import Loopl
import LooplServer

/// A stand-in for the Jinja engine and the schema grammars: ChatML with Hermes tool instructions
/// (as the in-process backend renders), and for a required call a grammar that forces
/// `<tool_call>` with the tool's required properties as strings.
struct ChatMLTestRenderer: PromptRenderer {
    var toolCallFormat: ToolCallFormat { .hermes }

    func render(messages: [Message], tools: [ToolSpec], options: GenerationOptions) throws -> RenderedPrompt {
        let tools = options.toolChoice == .none ? [] : tools
        var text = ""
        var turns = messages[...]
        var system = ""
        if case .system(let first)? = turns.first {
            system = first
            turns = turns.dropFirst()
        }
        if !tools.isEmpty {
            let list = tools.map { $0.openAIValue.jsonText() }.joined(separator: "\n")
            system += "\n\n# Tools\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n\(list)\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
        }
        if !system.isEmpty { text += "<|im_start|>system\n\(system)<|im_end|>\n" }
        for message in turns {
            text += "<|im_start|>\(message.role == "tool" ? "user" : message.role)\n\(message.text)<|im_end|>\n"
        }
        text += "<|im_start|>assistant\n"
        return RenderedPrompt(text: text, grammar: grammar(tools: tools, choice: options.toolChoice))
    }

    private func grammar(tools: [ToolSpec], choice: ToolChoice) -> String? {
        let forced: [ToolSpec]
        switch choice {
        case .required: forced = tools
        case .tool(let name): forced = tools.filter { $0.name == name }
        case .auto, .none: return nil
        }
        guard !forced.isEmpty else { return nil }
        let calls = forced.map { tool -> String in
            let required = tool.parameters["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let members = required.map { #""\"\#($0)\": " string"# }.joined(separator: #" ", " "#)
            return #""{\"name\": \"\#(tool.name)\", \"arguments\": {" \#(members.isEmpty ? "" : members + " ")"}}""#
        }
        return """
            root ::= "<tool_call>\\n" call "\\n</tool_call>"
            call ::= \(calls.joined(separator: " | "))
            string ::= "\\"" [A-Za-z ,.-]+ "\\""
            """
    }
}
