import Loopl

/// The fixed conversation of `loopl bench --agent`: a calculator task of three tool calls and their
/// results, replayed turn by turn so that every backend sees the same prompts.
enum AgentConversation {
    static let tools = [CalculatorTool().spec]

    /// The messages of each iteration: the first is the question, each later one adds a call and its result.
    static var iterations: [[Message]] {
        var messages: [Message] = [
            .system("You are a careful assistant. Use the calculator for arithmetic."),
            .user("What is 17*23? Add 100 to that, then divide the sum by 3."),
        ]
        var result = [messages]
        for (index, (expression, value)) in [("17*23", "391"), ("391+100", "491"), ("491/3", "163.666667")].enumerated() {
            let call = ToolCall(id: "call_\(index + 1)", name: "calculator", arguments: ["expression": .string(expression)])
            messages += [.assistant(text: "", toolCalls: [call]), .tool(result: value, callId: call.id, name: call.name)]
            result.append(messages)
        }
        return result
    }
}
