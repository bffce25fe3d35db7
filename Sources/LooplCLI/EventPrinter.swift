#if canImport(Glibc)
import Glibc
#endif
import Loopl
import LooplTerminal
import Synchronization

/// Prints agent events: answer text on standard output and thinking, tool calls, warnings and
/// metrics on standard error; or, with `json`, one JSON object per event on standard output.
/// Either way a call that needs approval is asked about on standard error when `asks`, else its
/// denial is told there, with `allowHint`'s way (for a tool name) to let it run.
/// Text written to a terminal has its escape sequences removed (``TerminalText``).
final class EventPrinter: Sendable {
    let console: Console
    let json: Bool
    let asks: Bool
    let allowHint: @Sendable (String) -> String
    private let awaiting = Mutex<[String: ToolCall]>([:])
    private let view: TranscriptView
    private let started = Mutex<[String: ToolCall]>([:])
    private let lastMetrics = Mutex<Metrics?>(nil)
    private let reasoningStream: Mutex<ReasoningStream>
    /// Whether standard output and standard error are terminals, whose text is cleaned.
    private let terminal: (out: Bool, err: Bool)

    /// `terminal`: whether standard output and error are terminals (default: `isatty`).
    init(console: Console, json: Bool, verbose: Bool, showReasoning: Bool = false, asks: Bool = false,
         allowHint: @escaping @Sendable (String) -> String = { _ in "pass --approve allow" },
         terminal: (out: Bool, err: Bool)? = nil) {
        self.console = console
        self.json = json
        self.asks = asks
        self.allowHint = allowHint
        view = TranscriptView(style: .detect(fd: 2), verbose: verbose, showReasoning: showReasoning)
        reasoningStream = Mutex(ReasoningStream(view: view))
        self.terminal = terminal ?? (isatty(1) == 1, isatty(2) == 1)
    }

    func print(_ event: AgentEvent) {
        approval(event)
        if json {
            // AgentEvent's Codable form is the stream's shape (docs/events.md).
            do { console.out(try JSONValue(encoding: event).jsonText() + "\n") } catch { console.err("\(error)") }
            return
        }
        if case .reasoning(let delta) = event {
            let shown = reasoningStream.withLock { $0.reasoning(delta) }
            if !shown.isEmpty { console.err(shown, newline: false) }
            return
        }
        if case .metrics = event {} else {
            let end = reasoningStream.withLock { $0.end() }
            if !end.isEmpty { console.err(end, newline: false) }
        }
        switch event {
        case .text(let text): console.out(terminal.out ? TerminalText.sanitized(text) : text)
        case .toolStarted(let call): started.withLock { $0[call.id] = call }
        case .toolFinished(let result):
            let call = started.withLock { $0[result.callId] } ?? ToolCall(id: result.callId, name: result.name)
            console.err("\n" + view.pill(call, result))
        case .warning(let text): console.err(view.render(.warning(text)))
        case .retrying(let iteration, let reason):
            // The text already printed stays; the retry's text starts on a new line.
            console.out("\n")
            console.err("[retrying turn \(iteration): \(terminal.err ? TerminalText.sanitized(reason) : reason)]")
        case .metrics(let metrics): lastMetrics.withLock { $0 = metrics }
        case .finished(let iterations, let reason):
            console.out("\n")
            let meter = lastMetrics.withLock { $0 }.map { " " + view.meter($0) } ?? ""
            console.err("[\(reason.rawValue) after \(iterations) iteration\(iterations == 1 ? "" : "s")]\(meter)")
        case .iterationStarted, .assistantMessage, .reasoning, .approvalRequested, .approvalAnswered: break
        }
    }

    /// The question for a call that waits for approval, or the sentence that says it was denied.
    private func approval(_ event: AgentEvent) {
        switch event {
        case .approvalRequested(let call):
            awaiting.withLock { $0[call.id] = call }
            if asks { console.err("\n" + view.approval(call, nil) + "\n" + TranscriptView.approvalQuestion, newline: false) }
        case .approvalAnswered(let callId, let decision):
            guard let call = awaiting.withLock({ $0.removeValue(forKey: callId) }), decision == .deny, !asks else { return }
            console.err("loopl: denied \(call.name) \(JSONValue.object(call.arguments).jsonText()): it needs approval, and standard input is not a terminal to ask on; to let it run, \(allowHint(call.name)).")
        default: break
        }
    }
}
