/// Shows the assistant's thinking while it streams: in full and dimmed when the view shows
/// thinking, else as a dimmed "thinking…" line (on a colour terminal, where it can be rewritten)
/// that becomes the view's collapsed line, with the thinking's length, once the thinking ends.
public struct ThinkingStream: Sendable {
    public let view: TranscriptView
    private var text = ""
    private var open = false

    public init(view: TranscriptView) { self.view = view }

    /// What to write for a piece of thinking.
    public mutating func reasoning(_ delta: String) -> String {
        defer {
            open = true
            text += delta
        }
        if view.showThinking { return view.thinking(delta) }
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
        if view.showThinking { return "\n\n" }
        return (view.style.colour ? "\r\u{1B}[2K" : "") + view.collapsedThinking(text) + "\n"
    }
}
