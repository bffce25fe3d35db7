import CLlama

/// What a draft model must share with the model that verifies its drafts: the tokenizer's kind,
/// the BOS and EOS tokens it adds, and each token's text (the sizes may differ by a little, as
/// padded vocabularies of one family do).
struct Vocabulary: Equatable {
    var kind: Int32
    var bos: llama_token?
    var eos: llama_token?
    var texts: [String]

    /// The most the two sizes may differ (llama.cpp's server allows the same).
    static let sizeSlack = 128

    init(kind: Int32, bos: llama_token?, eos: llama_token?, texts: [String]) {
        self.kind = kind
        self.bos = bos
        self.eos = eos
        self.texts = texts
    }

    init(_ weights: LlamaWeights) {
        let vocab = weights.vocab
        kind = Int32(bitPattern: llama_vocab_type(vocab).rawValue)
        bos = llama_vocab_get_add_bos(vocab) ? llama_vocab_bos(vocab) : nil
        eos = llama_vocab_get_add_eos(vocab) ? llama_vocab_eos(vocab) : nil
        texts = (0..<llama_vocab_n_tokens(vocab)).map { llama_vocab_get_text(vocab, $0).map { String(cString: $0) } ?? "" }
    }

    /// How `draft` differs from this vocabulary so that its drafts cannot be verified, or nil.
    func mismatch(_ draft: Vocabulary) -> String? {
        if kind != draft.kind { return "its tokenizer is of another kind" }
        if bos != draft.bos || eos != draft.eos { return "it adds other BOS or EOS tokens" }
        if abs(texts.count - draft.texts.count) > Self.sizeSlack {
            return "its vocabulary has \(draft.texts.count) tokens, against \(texts.count)"
        }
        for index in 0..<min(texts.count, draft.texts.count) where texts[index] != draft.texts[index] {
            return "its token \(index) is \(draft.texts[index].debugDescription), not \(texts[index].debugDescription)"
        }
        return nil
    }
}
