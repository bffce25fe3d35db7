/// What a user interface shows of an agent run: ``AgentEvent``s folded into items.
public struct Transcript: Sendable, Hashable {
    /// One thing shown.
    public enum Item: Sendable, Hashable {
        case user(String)
        /// The thinking of the assistant, before its text; streaming thinking merges into the last open one.
        case reasoning(String)
        /// Assistant text; streaming text merges into the last open one.
        case assistant(String)
        /// A call, and its result once it has one.
        case toolCall(ToolCall, result: ToolResult?)
        /// A call that waits for approval, and the decision once there is one.
        case approval(ToolCall, decision: ApprovalDecision?)
        case warning(String)
        /// A note from the program (a backend switch, a saved file).
        case note(String)
    }

    public private(set) var items: [Item] = []
    /// The latest metrics.
    public private(set) var metrics: Metrics?
    /// The current iteration, 0 before the first.
    public private(set) var iteration = 0
    /// True between a user message and the end of its run.
    public private(set) var isRunning = false
    /// Whether the next delta of the last item's kind (text or thinking) grows that item.
    private var lastItemOpen = false
    /// Where the current iteration's items start.
    private var iterationStart = 0

    public init() {}

    /// Adds the user's message and marks the run started.
    public mutating func user(_ text: String) {
        items.append(.user(text))
        isRunning = true
        iteration = 0
        closeOpenItems()
    }

    /// Adds a program note.
    public mutating func note(_ text: String) {
        items.append(.note(text))
        closeOpenItems()
    }

    /// Removes everything.
    public mutating func clear() { self = Transcript() }

    /// Ends the streaming items: the next text or thinking starts a new one.
    private mutating func closeOpenItems() {
        lastItemOpen = false
    }

    /// Folds `event` in; returns true when ``items`` changed.
    @discardableResult
    public mutating func apply(_ event: AgentEvent) -> Bool {
        switch event {
        case .iterationStarted(let n):
            iteration = n
            iterationStart = items.count
            closeOpenItems()
            return false
        case .retrying(let n, let reason):
            retry(n, reason: reason)
            return true
        case .text(let text):
            return append(text, as: Item.assistant)
        case .reasoning(let text):
            return append(text, as: Item.reasoning)
        case .metrics(let metrics):
            self.metrics = metrics
            return false
        case .assistantMessage:
            closeOpenItems()
            return false
        case .toolStarted(let call):
            items.append(.toolCall(call, result: nil))
            closeOpenItems()
            return true
        case .toolFinished(let result):
            return attach(result)
        case .approvalRequested(let call):
            items.append(.approval(call, decision: nil))
            closeOpenItems()
            return true
        case .approvalAnswered(let callId, let decision):
            return decide(callId, decision)
        case .warning(let text):
            items.append(.warning(text))
            closeOpenItems()
            return true
        case .finished:
            isRunning = false
            closeOpenItems()
            return false
        }
    }

    /// The turn starts again: its partial text and thinking are withdrawn, its warnings stay.
    private mutating func retry(_ n: Int, reason: String) {
        let start = min(iterationStart, items.count)
        items.replaceSubrange(start..., with: items[start...].filter {
            switch $0 {
            case .assistant, .reasoning: false
            default: true
            }
        })
        items.append(.note("retrying turn \(n): \(reason)"))
        iterationStart = items.count
        closeOpenItems()
    }

    /// Adds a delta of text or thinking: to the last item when it is open and of that kind.
    private mutating func append(_ delta: String, as kind: (String) -> Item) -> Bool {
        guard !delta.isEmpty else { return false }
        if lastItemOpen, var merged = items.last.flatMap({ Self.text(of: $0, ifLike: kind) }) {
            // Taken out first, so the text grows in place rather than being copied per delta.
            items.removeLast()
            merged += delta
            items.append(kind(merged))
        } else {
            items.append(kind(delta))
            lastItemOpen = true
        }
        return true
    }

    /// The text of an assistant or reasoning item that `kind` makes, nil for any other item.
    private static func text(of item: Item, ifLike kind: (String) -> Item) -> String? {
        switch (item, kind("")) {
        case (.assistant(let text), .assistant), (.reasoning(let text), .reasoning): text
        default: nil
        }
    }

    /// Gives `decision` to the last approval still waiting for it.
    private mutating func decide(_ callId: String, _ decision: ApprovalDecision) -> Bool {
        guard let index = items.lastIndex(where: {
            if case .approval(let call, nil) = $0 { call.id == callId } else { false }
        }), case .approval(let call, _) = items[index] else { return false }
        items[index] = .approval(call, decision: decision)
        return true
    }

    /// Gives `result` to the last call still waiting for it; a call that never started (denied,
    /// or cancelled while it waited for approval) comes after its approval, with the result.
    private mutating func attach(_ result: ToolResult) -> Bool {
        guard let index = items.lastIndex(where: {
            if case .toolCall(let call, nil) = $0 { call.id == result.callId } else { false }
        }), case .toolCall(let call, _) = items[index] else {
            guard !items.contains(where: { if case .toolCall(let call, _) = $0 { call.id == result.callId } else { false } }),
                  let call = items.last(where: { if case .approval(let call, _) = $0 { call.id == result.callId } else { false } })
                      .flatMap({ if case .approval(let call, _) = $0 { call } else { nil } }) else { return false }
            items.append(.toolCall(call, result: result))
            closeOpenItems()
            return true
        }
        items[index] = .toolCall(call, result: result)
        return true
    }
}
