import Loopl

extension PromptSpans {
    /// The prompt of `messages` and `tools` rendered by `render`, with the control-token text in their content
    /// found by `weights`' tokenizer.
    init(messages: [Message], tools: [ToolSpec], weights: LlamaWeights, render: ([Message], [ToolSpec]) throws -> String) throws {
        let controls = Self.content(of: messages, tools: tools).reduce(into: Set<String>()) { found, item in
            found.formUnion(Self.controlTexts(special: weights.tokenize(item, addSpecial: false),
                                              plain: weights.tokenize(item, addSpecial: false, parseSpecial: false),
                                              piece: { String(decoding: weights.piece($0), as: UTF8.self) }))
        }
        try self.init(messages: messages, tools: tools, controlTexts: controls, render: render)
    }

    /// The prompt's tokens: special tokens parsed in the template's text only; BOS as the model asks.
    func tokens(_ weights: LlamaWeights) -> [Int32] {
        pieces.enumerated().flatMap { index, piece in
            weights.tokenize(piece.text, addSpecial: index == 0, parseSpecial: !piece.isContent)
        }
    }
}
