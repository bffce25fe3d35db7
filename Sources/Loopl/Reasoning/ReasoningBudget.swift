/// Counts the thinking tokens of one generation and says when a budget of them is spent, so that a
/// backend that samples itself writes the closing marker and the model goes on to its answer (as
/// llama.cpp's `--reasoning-budget` does).
///
/// Before each token, ask ``closing()``; after it, give its text to ``record(_:)``. Thinking is
/// the text after an opening marker of ``ReasoningMarkup/all`` (or from the start, when the prompt
/// opened it) up to its closing marker; the tokens of the markers are not counted.
package struct ReasoningBudget: Sendable {
    /// The most thinking tokens; nil counts without a limit.
    package let limit: Int?
    /// Thinking tokens so far.
    package private(set) var tokens = 0

    private enum State: Sendable {
        /// Before any visible text: thinking may still open. Holds the text so far.
        case watching([UInt8])
        /// Inside reasoning, with its closing marker's bytes; holds the end of its text, where the
        /// closing marker may be forming.
        case reasoning(ReasoningMarkup, close: [UInt8], tail: [UInt8])
        /// Past the thinking, or there was none.
        case answering
    }

    private var state: State
    /// The last token's text was empty: possibly the first bytes of a character, not to be cut.
    private var midCharacter = false

    /// A budget of `limit` thinking tokens (nil: only counting) for the text generated after
    /// `promptText`; a prompt that ends by opening thinking starts the count at the first token.
    package init(limit: Int?, promptText: String) {
        self.init(limit: limit, opened: ReasoningMarkup.opened(byPrompt: promptText))
    }

    /// The same, for a prompt known to have opened the thinking of `opened` (nil: it did not).
    package init(limit: Int?, opened: ReasoningMarkup?) {
        self.limit = limit
        state = opened.map { .reasoning($0, close: Array($0.close.utf8), tail: []) } ?? .watching([])
    }

    /// True while the model is reasoning.
    package var isReasoning: Bool {
        if case .reasoning = state { true } else { false }
    }

    /// The text to write before the next token when the budget is spent (the closing marker);
    /// nil otherwise. It is given once: the thinking is over after it.
    package mutating func closing() -> String? {
        guard case .reasoning(let markup, _, _) = state, let limit, tokens >= limit, !midCharacter else { return nil }
        state = .answering
        return markup.forcedClose
    }

    /// Records the text of one generated token: empty when the token holds only part of a character.
    package mutating func record(_ text: String) {
        midCharacter = text.isEmpty
        switch state {
        case .answering:
            return
        case .watching(var seen):
            seen += text.utf8
            let start = seen.firstIndex { !ByteCursor.isSpace($0) } ?? seen.endIndex
            let rest = seen[start...]
            if let markup = ReasoningMarkup.all.first(where: { rest.starts(with: $0.open.utf8) }) {
                // The opening token is not counted, whatever follows the marker in it.
                let after = Array(rest.dropFirst(markup.open.utf8.count))
                let close = Array(markup.close.utf8)
                state = ByteCursor.find(close, in: after, from: 0) == nil ? .reasoning(markup, close: close, tail: after) : .answering
            } else if ReasoningMarkup.all.contains(where: { $0.open.utf8.starts(with: rest) }) {
                state = .watching(seen)
            } else {
                state = .answering
            }
        case .reasoning(let markup, let close, var tail):
            tail += text.utf8
            if ByteCursor.find(close, in: tail, from: 0) != nil {
                state = .answering
                return
            }
            tokens += 1
            tail.removeFirst(max(tail.count - (close.count - 1), 0))
            state = .reasoning(markup, close: close, tail: tail)
        }
    }
}
