import Loopl

/// Draws a ``Transcript`` for a terminal: user lines, the assistant's thinking dimmed (collapsed to
/// one line with its length, or in full), assistant text, tool calls as one-line pills (✓ or ✗,
/// name, duration; arguments and result when verbose), calls waiting for approval with their
/// arguments, warnings as amber pills, and a token meter.
public struct TranscriptView: Sendable {
    public var style: TerminalStyle
    /// Show each call's arguments and result under its pill.
    public var verbose: Bool
    /// Show the reasoning in full rather than as one line (`--show-thinking`).
    public var showReasoning: Bool

    public init(style: TerminalStyle, verbose: Bool = false, showReasoning: Bool = false) {
        self.style = style
        self.verbose = verbose
        self.showReasoning = showReasoning
    }

    /// The whole transcript, meter last.
    public func render(_ transcript: Transcript) -> String {
        var lines = transcript.items.map(render)
        if let metrics = transcript.metrics { lines.append(meter(metrics)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One item. Escape sequences and control characters in its text are removed (``TerminalText``).
    public func render(_ item: Transcript.Item) -> String {
        switch item {
        case .user(let text): return style.bold(style.cyan("› ")) + style.bold(Self.clean(text))
        case .reasoning(let text): return showReasoning ? reasoning(text) : collapsedReasoning(text)
        case .assistant(let text): return Self.clean(text)
        case .toolCall(let call, let result): return pill(call, result)
        case .approval(let call, let decision): return approval(call, decision)
        case .warning(let text): return style.amber("⚠ \(Self.clean(text))")
        case .note(let text): return style.dim("· \(Self.clean(text))")
        }
    }

    /// A tool call as one line: a spinner mark while it runs, then ✓ or ✗ and its duration.
    public func pill(_ call: ToolCall, _ result: ToolResult?) -> String {
        var line: String
        let call = ToolCall(id: call.id, name: Self.clean(call.name), arguments: call.arguments)
        switch result {
        case nil: line = style.dim("… \(call.name)")
        case let result? where result.isError: line = style.red("✗ \(call.name)") + style.dim(" \(Self.duration(result.durationMs))")
        case let result?: line = style.green("✓ \(call.name)") + style.dim(" \(Self.duration(result.durationMs))")
        }
        if verbose {
            line += "\n" + style.dim("  arguments: \(Self.clean(JSONValue.object(call.arguments).jsonText()))")
            if let result { line += "\n" + style.dim("  result: \(Self.oneLine(result.content, limit: 200))") }
        }
        return line
    }

    /// A call that waits for approval, with its arguments in full; then what was decided.
    public func approval(_ call: ToolCall, _ decision: ApprovalDecision?) -> String {
        switch decision {
        case nil: style.amber("? \(call.name)") + " " + JSONValue.object(call.arguments).jsonText()
        case .once: style.green("✓ \(call.name) approved once")
        case .run: style.green("✓ \(call.name) approved for this run")
        case .deny: style.red("✗ \(call.name) denied")
        }
    }

    /// The question after a call that waits for approval.
    public static let approvalQuestion = "Run it? y: yes, a: always in this run, n: no › "

    /// Reasoning as one dimmed line: its length and how it starts.
    public func collapsedReasoning(_ text: String) -> String {
        let text = Self.clean(text)
        let trimmed = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        return style.dim("▸ thought for \(trimmed.count) characters: \(Self.oneLine(trimmed, limit: 60))")
    }

    /// Reasoning in full, every line dimmed.
    public func reasoning(_ text: String) -> String {
        Self.clean(text).split(separator: "\n", omittingEmptySubsequences: false).map { style.dim(String($0)) }.joined(separator: "\n")
    }

    /// TTFT, speed, and context used of max.
    public func meter(_ metrics: Metrics) -> String {
        var parts: [String] = []
        if let ttft = metrics.ttftMs { parts.append("TTFT \(Int(ttft.rounded())) ms") }
        if let speed = metrics.tokensPerSecond { parts.append("\(Int(speed.rounded())) tok/s") }
        parts.append("context \(metrics.contextUsed)/\(metrics.contextMax)")
        if metrics.estimated { parts.append("estimated") }
        return style.dim("[" + parts.joined(separator: " · ") + "]")
    }

    static func duration(_ ms: Double) -> String { ms < 1000 ? "\(Int(ms.rounded())) ms" : "\(Int((ms / 100).rounded()) / 10).\(Int((ms / 100).rounded()) % 10) s" }

    static func clean(_ text: String) -> String { TerminalText.sanitized(text) }

    static func oneLine(_ text: String, limit: Int) -> String {
        let flat = clean(text).split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }
}
