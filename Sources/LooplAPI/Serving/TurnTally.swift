import Loopl

/// What one assistant turn said, gathered from its events: the text, the thinking, the calls kept
/// and the latest metrics. Every dialect's whole answer is built from one.
package struct TurnTally: Sendable {
    /// False when at most one tool call is kept.
    package let parallelToolCalls: Bool
    /// The visible text so far.
    package private(set) var text = ""
    /// The thinking so far.
    package private(set) var reasoning = ""
    /// The tool calls kept so far.
    package private(set) var toolCalls: [ToolCall] = []
    /// The latest metrics.
    package private(set) var metrics: Metrics?

    /// An empty turn.
    package init(parallelToolCalls: Bool = true) {
        self.parallelToolCalls = parallelToolCalls
    }

    /// True once the one call that `parallelToolCalls: false` allows has come: the caller may stop
    /// the generation, as further calls would be dropped.
    package var isSatisfied: Bool { !parallelToolCalls && !toolCalls.isEmpty }

    /// Takes one event of the model's stream.
    package mutating func add(_ event: ModelEvent) {
        switch event {
        case .text(let piece): text += piece
        case .reasoning(let piece): reasoning += piece
        case .toolCall(let call): if !isSatisfied { toolCalls.append(call) }
        case .metrics(let latest): metrics = latest
        }
    }
}
