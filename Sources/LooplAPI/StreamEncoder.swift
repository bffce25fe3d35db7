import Loopl

/// A dialect's stream encoder: the model's events of one turn in, the framed bytes of its stream
/// out. ``ServedModels/stream(_:on:headers:_:generate:)`` drives it.
///
/// Every dialect's folder (`Chat/`, `Completions/`, `Responses/`, `Messages/`, `Ollama/`) holds
/// the same four roles under the same names: its `…Request` (the body read into Loopl's messages,
/// tools and options), its `…Conversation` (its messages read into ``Message``s), its `…Answer`
/// (a whole turn gathered from the events) and its `…StreamEncoder` (this protocol).
protocol StreamEncoder {
    /// How the dialect's stream opens, keeps alive, ends and fails.
    static var framing: StreamFraming { get }
    /// The stream's pieces for one event, each framed; none for an event the stream does not show.
    mutating func encode(_ event: ModelEvent) -> [[UInt8]]
    /// The pieces that end the stream, after its last event.
    mutating func finish() -> [[UInt8]]
    /// True once the turn needs no further event (its one call, when parallel calls are off).
    var isSatisfied: Bool { get }
}
