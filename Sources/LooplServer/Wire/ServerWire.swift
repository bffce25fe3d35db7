import Loopl

/// One of the two HTTP formats a turn can take: its request body, and how a streamed chunk
/// becomes events.
package protocol ServerWire {
    /// The endpoint's path.
    var path: String { get }
    /// The markup the answer's text is lifted from (nil: none, the server sends calls and
    /// thinking apart), for its ``LiftingContinuation``.
    var markup: ToolCallFormat? { get }
    /// The thinking the prompt opened, when Loopl rendered a prompt that opens it.
    var opened: ReasoningMarkup? { get }
    /// The prompt's length in characters, for estimates when the server sends no counts.
    var promptCharacters: Int { get }
    /// Whether the server sends llama-server's `timings` (exact counts worth waiting for);
    /// `llamaCpp`: the server is llama-server.
    func expectsTimings(llamaCpp: Bool) -> Bool
    /// The request body; `llamaCpp`: the server is llama-server, which takes fields of its own.
    func body(llamaCpp: Bool) -> JSONValue
    /// Reads one chunk into `assembler`; returns true when it ends the answer.
    func read(_ chunk: JSONValue, into assembler: inout TurnAssembler, events: LiftingContinuation) -> Bool
}
