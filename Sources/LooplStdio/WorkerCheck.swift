import Loopl

/// A conformance suite for any stdio worker command: handshake, streaming, cancellation, error
/// shapes, version 2's several requests at once and reasoning, version 3's embeddings, shutdown, and exit when its input
/// closes. Each check starts from a worker in a known state and reports pass, fail or skip (a
/// check of a capability the worker does not declare) with a reason.
package struct WorkerCheck: Sendable {
    /// The outcome of one check.
    package struct Outcome: Sendable, Hashable {
        package enum Verdict: String, Sendable { case passed, failed, skipped }
        package var name: String
        package var verdict: Verdict
        package var detail: String
    }

    package var command: [String]
    package var initializeTimeout: Duration
    package var idleTimeout: Duration
    /// How long a worker may take to answer a cancellation, or to exit after its input closes.
    package var exitBound: Duration

    package init(command: [String], initializeTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(30),
                exitBound: Duration = .seconds(5)) {
        self.command = command
        self.initializeTimeout = initializeTimeout
        self.idleTimeout = idleTimeout
        self.exitBound = exitBound
    }

    /// A failed expectation inside a check.
    struct Failure: Error { let reason: String }
    /// A check that does not apply to this worker, and why.
    struct Skip: Error { let reason: String }

    /// Runs every check in order, calling `report` after each.
    package func run(report: @Sendable (Outcome) -> Void = { _ in }) async -> [Outcome] {
        let checks: [(String, @Sendable (WorkerCheckSession) async throws -> String)] = [
            ("handshake", handshake), ("streaming", streaming), ("cancellation", cancellation),
            ("error shapes", errorShapes), ("two requests at once", twoAtOnce), ("cancel one of two", cancelOneOfTwo),
            ("an error in one of two", errorInOneOfTwo), ("one request too many", oneTooMany), ("reasoning", reasoning),
            ("embeddings", embeddings), ("shutdown", shutdown), ("exit when stdin closes", exitOnEndOfInput),
        ]
        var outcomes: [Outcome] = []
        let session = WorkerCheckSession(check: self)
        for (name, body) in checks {
            let outcome: Outcome
            do {
                outcome = Outcome(name: name, verdict: .passed, detail: try await body(session))
            } catch let skip as Skip {
                outcome = Outcome(name: name, verdict: .skipped, detail: skip.reason)
            } catch let failure as Failure {
                outcome = Outcome(name: name, verdict: .failed, detail: failure.reason)
            } catch let error as LooplError {
                outcome = Outcome(name: name, verdict: .failed, detail: error.message)
            } catch {
                outcome = Outcome(name: name, verdict: .failed, detail: "\(error)")
            }
            if outcome.verdict == .failed { await session.reset() }
            outcomes.append(outcome)
            report(outcome)
        }
        await session.reset()
        return outcomes
    }

    // MARK: - Checks

    private func handshake(_ session: WorkerCheckSession) async throws -> String {
        await session.reset()
        let (_, info) = try await session.connection()
        let style = info.nativeToolCalls ? "native tool calls" : "tool calls as \(info.toolCallFormat?.rawValue ?? "auto") text"
        var said = "\(info.name) \(info.version), protocol \(info.protocolVersion), context \(info.contextMax), \(style)"
        if info.protocolVersion >= 2 {
            said += ", \(info.concurrentRequests) at once\(info.reasoning ? ", reasoning" : "")"
        }
        return said
    }

    private func streaming(_ session: WorkerCheckSession) async throws -> String {
        let (connection, _) = try await session.connection()
        let (events, result) = try await session.generate(connection, options: .greedy(maxTokens: 8))
        guard case .success(let value) = result else {
            throw Failure(reason: "a plain request failed: \(result)")
        }
        guard events.contains(where: { if case .metrics = $0 { false } else { true } }) else {
            throw Failure(reason: "no text or tool call event came before the result")
        }
        guard let wire = value["metrics"] else { throw Failure(reason: "the result has no metrics") }
        let metrics = try wire.decode(Metrics.self)
        guard metrics.stopReason != nil else { throw Failure(reason: "the result's metrics have no stopReason") }
        try? await Task.sleep(for: .milliseconds(300))
        while let stray = connection.mailbox.takePending() {
            if case .notification(let method, _) = stray, method != "event" { continue }
            throw Failure(reason: "it sent \(Mailbox.excerpt(stray.jsonValue.jsonText())) after the result")
        }
        if let end = connection.mailbox.end { throw Failure(reason: describe(end, connection)) }
        return "\(events.count) events, then a result (\(metrics.generatedTokens) tokens, \(metrics.stopReason?.rawValue ?? "?"))"
    }

    private func cancellation(_ session: WorkerCheckSession) async throws -> String {
        let (connection, info) = try await session.connection()
        guard info.cancellation else { throw Failure(reason: "the worker does not declare the cancellation capability") }
        var options = GenerationOptions.greedy(maxTokens: 400)
        options.backend.ignoreEndOfGeneration = true
        let id = session.nextId()
        try connection.send(.request(id: .integer(id), method: "generate", params: WorkerCheckSession.params(options)))
        let first = try await session.receive(connection, timeout: idleTimeout)
        guard case .notification(method: "event", _) = first else {
            throw Failure(reason: "expected an event first, got \(Mailbox.excerpt(first.jsonValue.jsonText()))")
        }
        try connection.send(.notification(method: "$/cancelRequest", params: ["id": .integer(id)]))
        let start = ContinuousClock.now
        var discarded = 0
        while true {
            let left = exitBound - (ContinuousClock.now - start)
            guard left > .zero else { throw Failure(reason: "no answer within \(exitBound) of $/cancelRequest") }
            let message = try await session.receive(connection, timeout: left)
            switch message {
            case .notification(method: "event", _):
                discarded += 1
            case .notification:
                continue
            case .response(.integer(id), .failure(let error)) where error.code == StdioProtocol.ErrorCode.requestCancelled:
                let after = try await session.generate(connection, options: .greedy(maxTokens: 2))
                guard case .success = after.1 else { throw Failure(reason: "the request after the cancelled one failed: \(after.1)") }
                return "answered -32800 after \(ContinuousClock.now - start) and \(discarded) more events; the next request worked"
            case .response(.integer(id), let result):
                throw Failure(reason: "the cancelled request was answered with \(result), not error -32800")
            default:
                throw Failure(reason: "unexpected \(Mailbox.excerpt(message.jsonValue.jsonText())) after $/cancelRequest")
            }
        }
    }

    private func errorShapes(_ session: WorkerCheckSession) async throws -> String {
        let (connection, _) = try await session.connection()
        let unknown = session.nextId()
        try connection.send(.request(id: .integer(unknown), method: "loopl/noSuchMethod", params: [:]))
        let answer = try await session.response(connection, id: unknown)
        guard case .failure(let error) = answer, error.code == StdioProtocol.ErrorCode.methodNotFound else {
            throw Failure(reason: "an unknown method was answered with \(answer), not error -32601")
        }
        let bad = session.nextId()
        try connection.send(.request(id: .integer(bad), method: "generate", params: ["messages": 5]))
        let badAnswer = try await session.response(connection, id: bad)
        guard case .failure(let badError) = badAnswer else {
            throw Failure(reason: "a generate request with 'messages': 5 was answered with \(badAnswer), not an error")
        }
        let after = try await session.generate(connection, options: .greedy(maxTokens: 2))
        guard case .success = after.1 else { throw Failure(reason: "the request after the bad ones failed: \(after.1)") }
        return "unknown method: -32601; bad params: \(badError.code); the worker went on"
    }

    private func shutdown(_ session: WorkerCheckSession) async throws -> String {
        let (connection, _) = try await session.connection()
        let id = session.nextId()
        try connection.send(.request(id: .integer(id), method: "shutdown", params: .null))
        let answer = try await session.response(connection, id: id)
        guard case .success(.null) = answer else { throw Failure(reason: "shutdown was answered with \(answer), not result null") }
        connection.child.closeInput()
        guard let status = await connection.child.waitForExit(timeout: exitBound) else {
            throw Failure(reason: "the worker still ran \(exitBound) after shutdown and the end of its input")
        }
        await session.reset()
        return "result null, then exit status \(status)"
    }

    private func exitOnEndOfInput(_ session: WorkerCheckSession) async throws -> String {
        let (connection, _) = try await session.connection()
        connection.child.closeInput()
        guard let status = await connection.child.waitForExit(timeout: exitBound) else {
            throw Failure(reason: "the worker still ran \(exitBound) after its input closed (without shutdown)")
        }
        await session.reset()
        return "exit status \(status)"
    }

    func describe(_ end: MailboxEnd, _ connection: WorkerConnection) -> String {
        switch end {
        case .exited: "the worker exited.\(connection.details)"
        case .violation(let what): "the worker broke the protocol: \(what).\(connection.details)"
        case .stopped: "the worker was stopped"
        }
    }
}
