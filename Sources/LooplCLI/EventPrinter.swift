import Loopl

/// Prints agent events: answer text on standard output and tool calls, warnings and metrics on
/// standard error; or, with `json`, one JSON object per event on standard output.
struct EventPrinter: Sendable {
    let console: Console
    let json: Bool

    func print(_ event: AgentEvent) {
        if json {
            console.out(Self.json(event).jsonText() + "\n")
            return
        }
        switch event {
        case .text(let text): console.out(text)
        case .toolStarted(let call): console.err("\n→ \(call.name) \(JSONValue.object(call.arguments).jsonText())")
        case .toolFinished(let result):
            console.err("\(result.isError ? "✗" : "✓") \(result.name) (\(Int(result.durationMs)) ms): \(result.content.prefix(200))")
        case .warning(let text): console.err("warning: \(text)")
        case .finished(let iterations, let reason):
            console.out("\n")
            console.err("[\(reason.rawValue) after \(iterations) iteration\(iterations == 1 ? "" : "s")]")
        case .iterationStarted, .metrics, .assistantMessage: break
        }
    }

    /// The JSON form of an event: `{"event": NAME, ...}`.
    static func json(_ event: AgentEvent) -> JSONValue {
        switch event {
        case .iterationStarted(let n): ["event": "iterationStarted", "iteration": .integer(n)]
        case .text(let text): ["event": "text", "text": .string(text)]
        case .metrics(let metrics): ["event": "metrics", "metrics": metricsValue(metrics)]
        case .assistantMessage(let message): ["event": "assistantMessage", "message": message.templateValue]
        case .toolStarted(let call): ["event": "toolStarted", "toolCall": call.templateValue]
        case .toolFinished(let result):
            ["event": "toolFinished",
             "result": ["callId": .string(result.callId), "name": .string(result.name), "isError": .bool(result.isError),
                        "durationMs": .double(result.durationMs), "content": .string(result.content)]]
        case .warning(let text): ["event": "warning", "message": .string(text)]
        case .finished(let iterations, let reason):
            ["event": "finished", "iterations": .integer(iterations), "reason": .string(reason.rawValue)]
        }
    }

    static func metricsValue(_ m: Metrics) -> JSONValue {
        ["promptTokens": .integer(m.promptTokens), "cachedPromptTokens": .integer(m.cachedPromptTokens),
         "generatedTokens": .integer(m.generatedTokens), "ttftMs": m.ttftMs.map(JSONValue.double) ?? .null,
         "tokensPerSecond": m.tokensPerSecond.map(JSONValue.double) ?? .null, "contextUsed": .integer(m.contextUsed),
         "contextMax": .integer(m.contextMax), "finished": .bool(m.finished),
         "stopReason": m.stopReason.map { .string($0.rawValue) } ?? .null, "estimated": .bool(m.estimated)]
    }
}
