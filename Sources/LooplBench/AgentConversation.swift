import Foundation
import Loopl

/// The fixed conversations of `loopl bench --agent`: a calculator task of three tool calls and
/// their results, replayed turn by turn so that every backend sees the same prompts.
enum AgentConversation {
    static let tools = [CalculatorTool().spec]

    /// The messages of each iteration: the first is the question, each later one adds a call and
    /// its result. Variant 0 asks about 17*23; variant k about (17+k)*23, so that conversations
    /// run side by side share no more than their system prompt.
    static func iterations(variant: Int = 0) -> [[Message]] {
        let first = 17 + variant, product = first * 23, sum = product + 100
        var messages: [Message] = [
            .system("You are a careful assistant. Use the calculator for arithmetic."),
            .user("What is \(first)*23? Add 100 to that, then divide the sum by 3."),
        ]
        let quotient = sum % 3 == 0 ? String(sum / 3) : String(format: "%.6f", Double(sum) / 3)
        var result = [messages]
        for (index, (expression, value)) in [("\(first)*23", "\(product)"), ("\(product)+100", "\(sum)"), ("\(sum)/3", quotient)].enumerated() {
            let call = ToolCall(id: "call_\(index + 1)", name: "calculator", arguments: ["expression": .string(expression)])
            messages += [.assistant(text: "", toolCalls: [call]), .tool(result: value, callId: call.id, name: call.name)]
            result.append(messages)
        }
        return result
    }
}
