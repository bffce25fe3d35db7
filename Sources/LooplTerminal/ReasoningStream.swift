/// Shows the assistant's thinking while it streams: in full and dimmed when the view shows
/// thinking, else as a dimmed "thinking…" line (on a colour terminal, where it can be rewritten)
/// that becomes the view's collapsed line, with the thinking's length, once the thinking ends.
public struct ReasoningStream: Sendable {
    public let view: TranscriptView
    private var text = ""
    private var open = false

    public init(view: TranscriptView) { self.view = view }

    /// What to write for a piece of thinking (the line breaks it starts with are left out).
    public mutating func reasoning(_ delta: String) -> String {
        let shown = text.allSatisfy(\.isWhitespace) ? String(delta.drop { $0.isWhitespace }) : delta
        defer {
            open = true
            text += delta
        }
        if view.showReasoning { return shown.isEmpty ? "" : view.reasoning(shown) }
        return !open && view.style.colour ? view.style.dim("▸ thinking…") : ""
    }

    /// What to write when something other than thinking comes: the end of the thinking's block,
    /// "" when no thinking is open.
    public mutating func end() -> String {
        guard open else { return "" }
        defer {
            open = false
            text = ""
        }
        if view.showReasoning { return "\n\n" }
        return (view.style.colour ? "\r\u{1B}[2K" : "") + view.collapsedReasoning(text) + "\n"
    }
}
