/// Runs a model and tools in a loop: a model turn, the tools it calls, their results fed back,
/// until the model answers, the iteration budget runs out, or the caller cancels.
public actor Agent {
    public let model: any Model
    public let tools: [any Tool]
    /// Tool sets that may change during a run, asked before every model turn; their tools come after ``tools``.
    public let toolSources: [any ToolSource]
    public var options: AgentOptions
    /// Decides on the calls that need approval (``ToolApproval/ask``); nil denies them.
    public let approver: ToolApprover?
    /// The conversation so far: save it, and give it to a new Agent to resume.
    public private(set) var messages: [Message]

    /// The tools of the turn that runs now: ``tools``, then the sources' tools.
    private var available: [any Tool] = []
    /// True while a run goes on: one Agent is one conversation, so a second run is refused.
    private var running = false
    /// The tools approved for the rest of the run that goes on (``ApprovalDecision/run``).
    private var approvedForRun: Set<String> = []
    /// The conversation's name for the model (``GenerationOptions/conversation``), unless the
    /// options name one.
    private let conversation = "agent-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)

    /// An agent over `model` with `tools` (and those of `toolSources`), continuing the
    /// conversation `messages` (empty: a new one); `approver` decides on calls that need approval.
    public init(model: any Model, tools: [any Tool] = [], toolSources: [any ToolSource] = [], options: AgentOptions = AgentOptions(),
                messages: [Message] = [], approver: ToolApprover? = nil) {
        self.model = model
        self.approver = approver
        self.tools = tools
        self.toolSources = toolSources
        self.options = options
        self.messages = messages
    }

    /// Changes the options of the runs that start from now on (a run under way keeps its own).
    public func setOptions(_ options: AgentOptions) {
        self.options = options
    }

    /// An agent on the same model, tools, options and approver, with the conversation `messages`.
    public func restarted(with messages: [Message]) -> Agent {
        Agent(model: model, tools: tools, toolSources: toolSources, options: options, messages: messages, approver: approver)
    }

    /// Asks the sources for their tools now.
    private func refreshTools() async {
        var current = tools
        for source in toolSources { current += await source.currentTools() }
        available = current
    }

    /// Adds `userText` to the conversation and runs the loop. The sequence ends with `.finished`;
    /// cancelling the consuming task stops the model and any running tool and finishes with `.cancelled`.
    /// A model's error (a context overflow, a dead backend) ends the sequence with that error; a
    /// turn whose engine was lost is first retried (``AgentOptions/turnRetries``, `.retrying`).
    /// While a run goes on, another `stream` or ``resume()`` ends at once with
    /// ``LooplError/Code/agentBusy``: one Agent is one conversation; many Agents may share a model.
    public nonisolated func stream(_ userText: String) -> EventChannel<AgentEvent> {
        start(userText)
    }

    /// Finishes an interrupted run of the conversation (one saved as it went, by a host that was
    /// killed): runs the calls of the last assistant turn that have no result yet, then goes on
    /// with the model; a conversation that ends with a user message or a tool result goes on with
    /// the model. One that is not interrupted finishes at once, with 0 iterations.
    public nonisolated func resume() -> EventChannel<AgentEvent> {
        start(nil)
    }

    /// True when the conversation ends mid-run: with a user message, a tool result, or tool calls
    /// without results. ``resume()`` finishes such a run.
    public var isInterrupted: Bool {
        !Self.pendingCalls(in: messages).isEmpty || ["user", "tool"].contains(messages.last?.role ?? "")
    }

    private nonisolated func start(_ userText: String?) -> EventChannel<AgentEvent> {
        let channel = EventChannel<AgentEvent>()
        let task = Task { await self.run(userText, into: channel) }
        channel.setOnCancel { task.cancel() }
        return channel
    }

    /// The calls of the last assistant turn that have no result, when only results follow it.
    static func pendingCalls(in messages: [Message]) -> [ToolCall] {
        guard let index = messages.lastIndex(where: { $0.role != "tool" }), messages[index].role == "assistant" else { return [] }
        let answered = Set(messages[(index + 1)...].compactMap { message -> String? in
            if case .tool(_, let callId, _) = message { callId } else { nil }
        })
        return messages[index].toolCalls.filter { !answered.contains($0.id) }
    }

    private func run(_ userText: String?, into channel: EventChannel<AgentEvent>) async {
        guard !running else {
            return channel.finish(throwing: LooplError(.agentBusy,
                "This agent is already running a turn of its conversation: wait for it to finish, or make another Agent on the same model."))
        }
        running = true
        approvedForRun = []
        defer { running = false }
        var detector = LoopDetector()
        var iteration = 0
        var resultLimit = options.maxToolResultBytes
        var firstChoice = options.firstToolChoice
        await refreshTools()
        do {
            if let userText {
                messages.append(.user(userText))
            } else {
                guard isInterrupted else {
                    channel.send(.finished(iterations: 0, reason: .answered))
                    return channel.finish()
                }
                if messages.last?.role != "user" { firstChoice = .auto }
                await runCalls(Self.pendingCalls(in: messages), detector: &detector, resultLimit: &resultLimit, into: channel)
            }
            var cancelled = Task.isCancelled
            while iteration < options.maxIterations, !cancelled {
                iteration += 1
                if iteration > 1 { await refreshTools() }
                channel.send(.iterationStarted(iteration))
                let turn = try await retryingTurn(iteration: iteration, toolChoice: iteration == 1 ? firstChoice : .auto, into: channel)
                let message = Message.assistant(text: turn.text, toolCalls: turn.calls, reasoning: turn.trimmedReasoning)
                if !turn.text.isEmpty || !turn.calls.isEmpty || !turn.cancelled {
                    messages.append(message)
                    channel.send(.assistantMessage(message))
                }
                if turn.cancelled { cancelled = true; break }
                if turn.calls.isEmpty {
                    channel.send(.finished(iterations: iteration, reason: .answered))
                    return channel.finish()
                }
                await runCalls(turn.calls, detector: &detector, resultLimit: &resultLimit, into: channel)
                cancelled = Task.isCancelled
            }
            channel.send(.finished(iterations: iteration, reason: cancelled ? .cancelled : .budget))
            channel.finish()
        } catch {
            if Task.isCancelled {
                channel.send(.finished(iterations: iteration, reason: .cancelled))
                channel.finish()
            } else {
                channel.finish(throwing: error)
            }
        }
    }

    /// Runs `calls` in order, each result added to the conversation as it comes.
    private func runCalls(_ calls: [ToolCall], detector: inout LoopDetector, resultLimit: inout Int?,
                          into channel: EventChannel<AgentEvent>) async {
        for call in calls {
            if detector.record(call) {
                channel.send(.warning("\(call.name) was called with the same arguments \(LoopDetector.threshold) times in this run."))
            }
            var result: ToolResult
            if Task.isCancelled {
                result = ToolResult(callId: call.id, name: call.name, isError: true, durationMs: 0, content: "Cancelled before it ran.")
            } else if let refusal = await approval(of: call, into: channel) {
                result = refusal
            } else {
                channel.send(.toolStarted(call))
                result = await runTool(call, warn: { channel.send(.warning($0)) })
            }
            if resultLimit == nil { resultLimit = max(1024, (try? await model.contextSize) ?? 65536) }
            if let limit = resultLimit, result.content.utf8.count > limit {
                channel.send(.warning("\(call.name) returned \(result.content.utf8.count) bytes; the model reads the first \(limit)."))
                result.content = ToolResult.cut(result.content, toBytes: limit)
            }
            messages.append(.tool(result: result.content, callId: call.id, name: call.name))
            channel.send(.toolFinished(result))
        }
    }

    /// Asks the approver about `call` when its tool needs approval; nil when it may run, else the
    /// result that stands for it: denied, or cancelled while waiting.
    private func approval(of call: ToolCall, into channel: EventChannel<AgentEvent>) async -> ToolResult? {
        guard let tool = available.first(where: { $0.name == call.name }), (tool.approval ?? options.approval) == .ask,
              !approvedForRun.contains(call.name), ArgumentCheck.problem(call.arguments, schema: tool.parameters) == nil else { return nil }
        channel.send(.approvalRequested(call))
        let decision = if let approver { await ApprovalWait.decision(of: approver, on: call) } else { ApprovalDecision.deny }
        guard let decision else {
            return ToolResult(callId: call.id, name: call.name, isError: true, durationMs: 0, content: "Cancelled before it ran.")
        }
        channel.send(.approvalAnswered(callId: call.id, decision: decision))
        switch decision {
        case .once: return nil
        case .run:
            approvedForRun.insert(call.name)
            return nil
        case .deny:
            return ToolResult(callId: call.id, name: call.name, isError: true, durationMs: 0, content: Self.denied)
        }
    }

    /// What the model reads of a call the user denied.
    static let denied = "The user denied this call."

    /// One model turn, tried again from the same messages while its engine is lost and retries
    /// are left; a route that fell back to its next backend gets a fresh count.
    private func retryingTurn(iteration: Int, toolChoice: ToolChoice, into channel: EventChannel<AgentEvent>) async throws -> Turn {
        var retriesLeft = options.turnRetries
        while true {
            do {
                return try await modelTurn(toolChoice: toolChoice, into: channel)
            } catch let error as LooplError where error.isEngineLoss && !Task.isCancelled && options.turnRetries > 0
                        && (retriesLeft > 0 || error.engineLoss == .fellBack) {
                retriesLeft = error.engineLoss == .fellBack ? options.turnRetries : retriesLeft - 1
                channel.send(.retrying(iteration: iteration, reason: Self.reason(error)))
            }
        }
    }

    /// The first line of an error's message, without a trailing "Its last lines:" sentence.
    static func reason(_ error: LooplError) -> String {
        var line = error.message.prefix { $0 != "\n" }
        if line.hasSuffix(":"), let end = line.dropLast().lastIndex(of: ".") { line = line[...end] }
        return String(line)
    }

    private struct Turn {
        var text = ""
        var reasoning = ""
        var calls: [ToolCall] = []
        var cancelled = false

        /// Adds visible text and returns what of it to show: the spaces and line breaks between
        /// the thinking and the answer are dropped.
        mutating func add(_ delta: String) -> String {
            var shown = Substring(delta)
            if text.isEmpty, !reasoning.isEmpty { shown = shown.drop { $0.isWhitespace } }
            text += shown
            return String(shown)
        }

        /// The reasoning as the message keeps it: without surrounding spaces and line breaks, nil when none.
        var trimmedReasoning: String? {
            let trimmed = reasoning.trimmingWhitespace()
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    /// Streams one model turn: its text and thinking to the channel, its calls into the turn.
    private func modelTurn(toolChoice: ToolChoice, into channel: EventChannel<AgentEvent>) async throws -> Turn {
        var generation = options.generation
        generation.toolChoice = toolChoice
        generation.conversation = generation.conversation ?? conversation
        var turn = Turn()
        do {
            for try await event in model.generate(messages: messages, tools: available.map(\.spec), options: generation) {
                switch event {
                case .text(let delta):
                    let shown = turn.add(delta)
                    if !shown.isEmpty { channel.send(.text(shown)) }
                case .reasoning(let delta):
                    guard !delta.isEmpty else { continue }
                    turn.reasoning += delta
                    channel.send(.reasoning(delta))
                case .toolCall(let call):
                    turn.calls.append(call)
                case .metrics(let metrics):
                    channel.send(.metrics(metrics))
                    if metrics.stopReason == .cancelled { turn.cancelled = true }
                }
                if Task.isCancelled { break }
            }
        } catch let error as LooplError where error.code == .cancelled {
            turn.cancelled = true
        } catch is CancellationError {
            turn.cancelled = true
        }
        if Task.isCancelled { turn.cancelled = true }
        if turn.cancelled { turn.calls = [] }
        return turn
    }

    /// Runs one call; every failure becomes an error result for the model to read.
    private func runTool(_ call: ToolCall, warn: (String) -> Void) async -> ToolResult {
        let start = ContinuousClock.now
        func result(_ content: String, error: Bool) -> ToolResult {
            ToolResult(callId: call.id, name: call.name, isError: error,
                       durationMs: (ContinuousClock.now - start).milliseconds, content: content)
        }
        guard let tool = available.first(where: { $0.name == call.name }) else {
            let names = available.map(\.name).joined(separator: ", ")
            warn("The model called \(call.name), which is not a declared tool.")
            return result("Error: there is no tool named \(call.name). Available tools: \(names.isEmpty ? "none" : names).", error: true)
        }
        if let problem = ArgumentCheck.problem(call.arguments, schema: tool.parameters) {
            return result("Error: invalid arguments for \(call.name): \(problem)", error: true)
        }
        do {
            let output = try await withTimeout(options.toolTimeout) { try await tool.call(call.arguments) }
            return result(output, error: false)
        } catch is TimeoutError {
            return result("Error: \(call.name) did not finish within \(options.toolTimeout).", error: true)
        } catch is CancellationError {
            return result("Error: \(call.name) was cancelled.", error: true)
        } catch {
            return result("Error: \(call.name) failed: \(error)", error: true)
        }
    }
}
