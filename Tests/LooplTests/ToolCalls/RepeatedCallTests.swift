import Loopl
import Testing

/// A lifted turn that writes a call it already made ends there: the repeat and what follows it are
/// dropped, the backend is told, and the lines between calls are not content.
struct RepeatedCallTests {
    static let add = ToolSpec(name: "add", description: "Add.",
                              parameters: ["type": "object", "properties": ["a": ["type": "integer"]]])

    static func call(_ a: Int) -> String { "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": \(a)}}\n</tool_call>\n" }

    /// The events lifted from `text` in 5-byte deltas, then a finished turn; and whether a call repeated.
    static func lift(_ text: String) async throws -> (events: [ModelEvent], repeated: Bool) {
        let (stream, continuation) = AsyncThrowingStream<ModelEvent, any Error>.makeStream()
        let lifting = LiftingContinuation(continuation, format: .hermes, tools: [Self.add])
        var rest = Substring(text)
        while !rest.isEmpty {
            lifting.yield(.text(String(rest.prefix(5))))
            rest = rest.dropFirst(5)
        }
        lifting.yield(.metrics(Metrics(finished: true, stopReason: .endTurn)))
        continuation.finish()
        var events: [ModelEvent] = []
        for try await event in stream { events.append(event) }
        return (events, lifting.repeatedCall)
    }

    static func calls(_ events: [ModelEvent]) -> [JSONValue] {
        events.compactMap { if case .toolCall(let call) = $0 { .object(call.arguments) } else { nil } }
    }

    static func text(_ events: [ModelEvent]) -> String {
        events.map { if case .text(let text) = $0 { text } else { "" } }.joined()
    }

    @Test func aRepeatedCallEndsTheTurnAndIsDropped() async throws {
        let (events, repeated) = try await Self.lift(Self.call(1) + Self.call(1) + Self.call(2) + "Done.")
        #expect(Self.calls(events) == [["a": 1]])
        #expect(repeated)
        #expect(Self.text(events) == "")
        guard case .metrics(let last)? = events.last else { Issue.record("no metrics last"); return }
        #expect(last.stopReason == .toolCall)
    }

    @Test func differentCallsAreAllKeptWithoutTheLinesBetweenThem() async throws {
        let (events, repeated) = try await Self.lift(Self.call(1) + Self.call(2))
        #expect(Self.calls(events) == [["a": 1], ["a": 2]])
        #expect(!repeated)
        #expect(Self.text(events) == "")
    }

    /// BFCL's cut turns left `\n\n</tool_call` as content after their calls.
    @Test func aTurnCutAnywhereInItsSecondCallLeavesNoContent() async throws {
        let second = Self.call(2)
        for cut in 0...second.count {
            let (events, _) = try await Self.lift(Self.call(1) + String(second.prefix(cut)))
            #expect(Self.text(events) == "", "cut after \(cut): \(Self.text(events).debugDescription)")
            #expect(Self.calls(events).first == ["a": 1])
        }
    }

    @Test func whitespaceInAnAnswerWithoutCallsIsKept() async throws {
        let (events, _) = try await Self.lift("One.\n\n  Two.\n\n")
        #expect(Self.text(events) == "One.\n\n  Two.\n\n")
    }
}
