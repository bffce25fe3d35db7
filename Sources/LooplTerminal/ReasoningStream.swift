/// Shows the assistant's reasoning while it streams: in full and dimmed when the view shows
/// reasoning, else as a dimmed "thinking…" line (on a colour terminal, where it can be rewritten)
/// that becomes the view's collapsed line, with the reasoning's length, once the reasoning ends.
public struct ReasoningStream: Sendable {
    public let view: TranscriptView
    private var text = ""
    private var open = false

    public init(view: TranscriptView) { self.view = view }

    /// What to write for a piece of reasoning (the line breaks it starts with are left out).
    public mutating func reasoning(_ delta: String) -> String {
        let shown = text.allSatisfy(\.isWhitespace) ? String(delta.drop { $0.isWhitespace }) : delta
        defer {
            open = true
            text += delta
        }
        if view.showReasoning { return shown.isEmpty ? "" : view.reasoning(shown) }
        return !open && view.style.colour ? view.style.dim("▸ thinking…") : ""
    }

    /// What to write when something other than reasoning comes: the end of the reasoning's block,
    /// "" when no reasoning is open.
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
