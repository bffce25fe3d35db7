import Loopl

/// The server-sent events of a streamed `/v1/completions` answer: a `text_completion` chunk per
/// piece of text, then the one with the `finish_reason` and, with `includeUsage`, the usage.
struct CompletionStreamEncoder: StreamEncoder {
    static var framing: StreamFraming { .openAI }

    /// The answer the chunks are gathered in.
    var answer: CompletionAnswer
    /// True when the stream ends with a usage chunk.
    let includeUsage: Bool

    /// A completion never stops the turn early.
    var isSatisfied: Bool { false }

    mutating func encode(_ event: ModelEvent) -> [[UInt8]] {
        answer.add(event, includeUsage: includeUsage).map { [SSE.data($0)] } ?? []
    }

    mutating func finish() -> [[UInt8]] { answer.finish(includeUsage: includeUsage).map(SSE.data) }
}
