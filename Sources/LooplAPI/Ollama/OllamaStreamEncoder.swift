import Loopl

/// Ollama's streams: newline-delimited JSON (`application/x-ndjson`), an object per piece of the
/// turn and a last one with `done: true` and the counters; no keep-alive bytes (a blank line
/// would break its clients' line reader), nothing after the last object, and an error after the
/// head as a last `{"error": ...}` line.
struct OllamaStreamEncoder: StreamEncoder {
    static let framing = StreamFraming(ping: [], done: [], errorBody: { $0.ollamaBody }, errorEvent: { $0.ollamaStreamLine },
                                       contentType: "application/x-ndjson")

    /// The answer the objects are gathered in.
    var answer: OllamaAnswer

    /// Ollama's endpoints never stop the turn early.
    var isSatisfied: Bool { false }

    mutating func encode(_ event: ModelEvent) -> [[UInt8]] { answer.chunk(for: event).map { [Self.line($0)] } ?? [] }

    mutating func finish() -> [[UInt8]] { [Self.line(answer.final(streamed: true))] }

    /// One object of a stream: compact JSON and a newline.
    static func line(_ json: JSONValue) -> [UInt8] { Array((json.jsonText() + "\n").utf8) }
}
