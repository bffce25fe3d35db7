import Foundation
import Loopl
import LooplHTTP
import Synchronization

/// `POST /loopl/v1/runs`: an ``Agent`` run, its events streamed as server-sent events in the
/// `loopl run --json` schema (docs/events.md), its conversation saved after every message; and
/// `POST /loopl/v1/runs/{id}/cancel`, which stops one; `POST /loopl/v1/runs/{id}/approvals/{callId}`,
/// which answers a call that waits for approval; and `GET /loopl/v1/settings`, what the page starts from.
struct RunsEndpoint: Sendable {
    let models: ServedModels
    let toolkit: AgentToolkit
    let store: SessionStore
    /// Whether calls of tools that set no approval of their own wait for one.
    let approval: ToolApproval
    /// How long a call waits for its approval before it is denied.
    let approvalTimeout: Duration
    let registry = RunRegistry()
    let desk = ApprovalDesk()

    func start(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let run = try RunRequest(body: request.body)
            let sessionId = run.session ?? SessionStore.newId()
            if let busy = registry.agent(forSession: sessionId) {
                return try await refuse(busy, run.prompt, responder)
            }
            let history = try run.session.map { id throws(APIError) in try store.messages(id) } ?? []
            let model = try await models.start(named: run.model, keepAlive: run.keepAlive)
            let made = try await makeTools(run)
            let runId = "run_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let agent = Agent(model: ServedEngine(served: model), tools: made.tools, toolSources: made.sources,
                              options: AgentOptions(maxIterations: run.maxIterations, toolTimeout: made.toolTimeout,
                                                    firstToolChoice: run.toolChoice, generation: run.generation, approval: approval),
                              messages: history + run.earlier, approver: desk.approver(run: runId, timeout: approvalTimeout))
            let title = history.isEmpty ? SessionStore.title(of: run.prompt) : nil
            await stream(agent, run: run, id: runId, session: sessionId, title: title, model: model.name, made: made, responder)
        } catch {
            responder.respond(APIError.from(error))
        }
    }

    /// A second run on a busy session, refused as its ``Agent`` refuses it.
    private func refuse(_ agent: Agent, _ prompt: String, _ responder: HTTPResponder) async throws {
        let events = agent.stream(prompt)
        var iterator = events.makeAsyncIterator()
        do {
            _ = try await iterator.next()
        } catch let error as LooplError where error.code == .agentBusy {
            throw Self.busy(error.message)
        }
        // The run ended just now and the agent took this one: it is stopped, and refused all the same.
        let drain = Task { for try await _ in events {} }
        drain.cancel()
        throw Self.busy("The session was running a turn: send the prompt again.")
    }

    /// The 409 of a run on a session that is running one.
    static func busy(_ message: String) -> APIError {
        APIError(status: 409, type: "invalid_request_error", code: "session_busy", message: message, param: "session")
    }

    private func makeTools(_ run: RunRequest) async throws -> AgentToolkit.Made {
        let made: AgentToolkit.Made
        do { made = try await toolkit.make(run.tools, run.mcp) } catch let error as APIError { throw error } catch {
            throw APIError.invalidRequest((error as? LooplError)?.message ?? "\(error)", param: "tools")
        }
        if case .tool(let name) = run.toolChoice, !made.offered.contains(name) {
            await made.close()
            let offered = made.offered.isEmpty ? "no tool is enabled" : "offered: " + made.offered.joined(separator: ", ")
            throw APIError.invalidRequest("`toolChoice` names '\(name)', which is not an enabled tool (\(offered)).", param: "toolChoice")
        }
        return made
    }

    private func stream(_ agent: Agent, run: RunRequest, id runId: String, session: String, title: String?, model: String,
                        made: AgentToolkit.Made, _ responder: HTTPResponder) async {
        let gate = StreamGate(responder, keepAlive: models.keepAlive, framing: .responses,
                              headers: [("Loopl-Run-Id", runId), ("Loopl-Session-Id", session)])
        let timer = gate.armKeepAlive()
        defer { timer.cancel() }
        let store = self.store
        let registry = self.registry
        let desk = self.desk
        let handle = RunHandle()
        guard registry.begin(run: runId, session: session, agent: agent, cancel: { handle.cancel() }) else {
            await made.close()
            return gate.fail(Self.busy("The session \(session) is running a turn already: wait for it to finish."))
        }
        let work = Task {
            for warning in made.warnings { _ = gate.send(SSE.data(try JSONValue(encoding: AgentEvent.warning(warning)))) }
            var saved = false
            for try await event in agent.stream(run.prompt) {
                switch event {
                case .iterationStarted(1), .assistantMessage, .toolFinished:
                    try store.save(session, messages: await agent.messages, title: saved ? nil : title, model: model)
                    saved = true
                case .approvalRequested(let call):
                    // Opened before the client reads the event, so its answer always finds the wait.
                    desk.expect(run: runId, call: call.id)
                default: break
                }
                // A client that is gone cancels its run; the run's last events are still saved.
                if !gate.send(SSE.data(try JSONValue(encoding: event))) { handle.cancel() }
            }
            try store.save(session, messages: await agent.messages)
        }
        handle.set(work)
        // A client that hangs up, or a server that stops, cancels the run, even one that waits for an approval.
        let result = await withTaskCancellationHandler { await work.result } onCancel: { handle.cancel() }
        registry.end(run: runId, session: session)
        desk.close(run: runId)
        await made.close()
        switch result {
        case .success: gate.finish()
        case .failure(let error):
            let messages = await agent.messages
            if !messages.isEmpty { try? store.save(session, messages: messages, title: title, model: model) }
            gate.fail(APIError.from(error))
        }
    }

    func cancel(_ id: String, _ responder: HTTPResponder) {
        guard registry.cancel(id) else {
            return responder.respond(APIError(status: 404, type: "invalid_request_error", code: "run_not_found",
                                              message: "There is no run '\(id.prefix(80))' under way: it finished, or never started."))
        }
        responder.respond(json: ["id": .string(id), "status": "cancelling"])
    }

    /// Answers the call `callId` of the run `id` with the body's `decision`.
    func approve(_ id: String, call callId: String, _ request: HTTPRequest, _ responder: HTTPResponder) {
        do {
            let decision = try Self.decision(request.body)
            guard registry.isRunning(id) else {
                throw APIError(status: 404, type: "invalid_request_error", code: "run_not_found",
                               message: "There is no run '\(id.prefix(80))' under way: it finished, or never started.")
            }
            guard desk.answer(run: id, call: callId, with: decision) else {
                throw APIError(status: 404, type: "invalid_request_error", code: "approval_not_found",
                               message: "The run '\(id.prefix(80))' has no call '\(callId.prefix(80))' waiting for approval: it was answered, timed out, or never asked.")
            }
            responder.respond(json: ["id": .string(callId), "run": .string(id), "decision": .string(decision.rawValue)])
        } catch {
            responder.respond(APIError.from(error))
        }
    }

    /// `GET /loopl/v1/settings`, what the page starts from: the default model, the built-in tools
    /// and the MCP servers.
    func settings(_ responder: HTTPResponder) {
        responder.respond(json: ["model": models.directory.names.defaultBackend.map(JSONValue.string) ?? .null,
                                 "tools": .array(toolkit.builtIn.map(JSONValue.string)),
                                 "mcp": .array(toolkit.mcpServers.map(JSONValue.string))])
    }

    /// The `decision` of an approval's body.
    private static func decision(_ body: [UInt8]) throws(APIError) -> ApprovalDecision {
        let root = try RequestField.body(RequestField.parse(body: body).value)
        let word = try root.required("decision").string()
        guard let decision = ApprovalDecision(rawValue: word) else {
            throw .invalidRequest("`decision` must be \"once\", \"run\" or \"deny\", not '\(word.prefix(80))'.", param: "decision")
        }
        return decision
    }
}
