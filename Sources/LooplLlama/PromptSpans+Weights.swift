import Loopl

extension PromptSpans {
    /// The prompt's tokens: special tokens parsed in the template's text only; BOS as the model asks.
    func tokens(_ weights: LlamaWeights) -> [Int32] {
        let spans = pieces { item in
            weights.tokenize(item, addSpecial: false) != weights.tokenize(item, addSpecial: false, parseSpecial: false)
        }
        var tokens: [Int32] = []
        for (index, piece) in spans.enumerated() {
            tokens += weights.tokenize(String(piece.text), addSpecial: index == 0, parseSpecial: !piece.isContent)
        }
        return tokens
    }
}
