import Loopl

// The checks of protocol version 2: several requests in flight on one worker, and reasoning.
extension WorkerCheck {
    typealias Arrival = WorkerCheckSession.Arrival

    func twoAtOnce(_ session: WorkerCheckSession) async throws -> String {
        let (connection, info) = try await session.connection()
        try requireConcurrent(info)
        let options = Self.exactly(24)
        let first = try session.start(connection, options: options)
        let second = try session.start(connection, options: options)
        let log = try await collect(session, connection, [first, second])
        for id in [first, second] {
            try expectTokens(log, id, 24)
        }
        guard let firstStart = log.firstEvent(first), let secondStart = log.firstEvent(second),
              let firstEnd = log.answer(first), let secondEnd = log.answer(second),
              firstStart < secondEnd, secondStart < firstEnd else {
            throw Failure(reason: "one request's events all came after the other's result: the worker served them one after the other, though it declares \(info.concurrentRequests) at once")
        }
        return "\(log.events(first).count) and \(log.events(second).count) events, interleaved (\(log.switches) switches between the two)"
    }

    func cancelOneOfTwo(_ session: WorkerCheckSession) async throws -> String {
        let (connection, info) = try await session.connection()
        try requireConcurrent(info)
        let cancelled = try session.start(connection, options: Self.exactly(400))
        let kept = try session.start(connection, options: Self.exactly(24))
        var cancelledAt: ContinuousClock.Instant?
        var answeredAt: ContinuousClock.Instant?
        let log = try await collect(session, connection, [cancelled, kept]) { arrival, log in
            if cancelledAt == nil {
                if case .answer(let id, _) = arrival {
                    throw Failure(reason: "request \(id) was answered before both requests had streamed: the worker did not serve them together")
                }
                if log.firstEvent(cancelled) != nil, log.firstEvent(kept) != nil {
                    try connection.send(.notification(method: "$/cancelRequest", params: ["id": .integer(cancelled)]))
                    cancelledAt = .now
                }
            } else if case .answer(cancelled, _) = arrival {
                answeredAt = .now
            }
        }
        guard let cancelledAt, let answeredAt, answeredAt - cancelledAt <= exitBound else {
            throw Failure(reason: "the cancelled request was not answered within \(exitBound) of $/cancelRequest")
        }
        guard case .failure(let error)? = log.result(cancelled), error.code == StdioProtocol.ErrorCode.requestCancelled else {
            throw Failure(reason: "the cancelled request was answered with \(String(describing: log.result(cancelled))), not error -32800")
        }
        try expectTokens(log, kept, 24)
        return "the cancelled one answered -32800 after \(answeredAt - cancelledAt); the other finished its 24 tokens"
    }

    func errorInOneOfTwo(_ session: WorkerCheckSession) async throws -> String {
        let (connection, info) = try await session.connection()
        try requireConcurrent(info)
        let good = try session.start(connection, options: Self.exactly(24))
        let huge = String(repeating: "hello ", count: min(info.contextMax * 2, 2_000_000))
        let bad = try session.start(connection, options: .greedy(maxTokens: 8), prompt: huge)
        let log = try await collect(session, connection, [good, bad])
        guard case .failure(let error)? = log.result(bad), error.looplError.code == .contextOverflow else {
            throw Failure(reason: "a prompt of \(min(info.contextMax * 2, 2_000_000)) words in a context of \(info.contextMax) was answered with \(String(describing: log.result(bad))), not a context_overflow error")
        }
        try expectTokens(log, good, 24)
        return "the prompt over the context: context_overflow; the other finished its 24 tokens"
    }

    func oneTooMany(_ session: WorkerCheckSession) async throws -> String {
        let (connection, info) = try await session.connection()
        guard info.protocolVersion >= 2 else { throw Skip(reason: "the worker speaks protocol version 1: one request at a time") }
        guard info.concurrentRequests <= 64 else { throw Skip(reason: "the worker declares \(info.concurrentRequests) at once, more than this check sends") }
        let served = try (0..<info.concurrentRequests).map { _ in try session.start(connection, options: Self.exactly(24)) }
        let extra = try session.start(connection, options: Self.exactly(24))
        let log = try await collect(session, connection, served + [extra])
        guard case .failure(let error)? = log.result(extra), error.code == StdioProtocol.ErrorCode.invalidRequest else {
            throw Failure(reason: "request \(info.concurrentRequests + 1) of \(info.concurrentRequests) declared was answered with \(String(describing: log.result(extra))), not error -32600")
        }
        guard log.events(extra).isEmpty else { throw Failure(reason: "the request one too many streamed events before its refusal") }
        for id in served { try expectTokens(log, id, 24) }
        return "\(info.concurrentRequests) served, one more refused with -32600"
    }

    func reasoning(_ session: WorkerCheckSession) async throws -> String {
        let (connection, info) = try await session.connection()
        guard info.protocolVersion >= 2 else { throw Skip(reason: "the worker speaks protocol version 1, which has no reasoning events") }
        guard info.reasoning else { throw Skip(reason: "the worker does not declare reasoning: its thinking, if any, stays in its text") }
        var options = GenerationOptions.greedy(maxTokens: 16)
        options.reasoning = .on
        let (on, onResult) = try await session.generate(connection, options: options)
        guard case .success = onResult else { throw Failure(reason: "a request with reasoning on failed: \(onResult)") }
        options.reasoning = .off
        let (off, offResult) = try await session.generate(connection, options: options)
        guard case .success = offResult else { throw Failure(reason: "a request with reasoning off failed: \(offResult)") }
        let thoughts = off.filter { if case .reasoning = $0 { true } else { false } }.count
        guard thoughts == 0 else { throw Failure(reason: "with reasoning off the worker sent \(thoughts) reasoning events") }
        let count = on.filter { if case .reasoning = $0 { true } else { false } }.count
        return "with reasoning on: \(count) reasoning events; with it off: none"
    }

    /// Version 3: `embed` gives one unit vector for each input, all of one size, and refuses a
    /// list that is not of strings with -32602.
    func embeddings(_ session: WorkerCheckSession) async throws -> String {
        let (connection, info) = try await session.connection()
        guard info.embeddings else { throw Skip(reason: "the worker does not declare embeddings (protocol version 3)") }
        let id = session.nextId()
        try connection.send(.request(id: .integer(id), method: "embed", params: ["inputs": ["a cat", "a dog"], "truncate": false]))
        guard case .success(let value) = try await session.response(connection, id: id) else {
            throw Failure(reason: "embed of two texts failed")
        }
        let vectors = value["vectors"]?.arrayValue?.map { $0.arrayValue?.compactMap(\.doubleValue) ?? [] } ?? []
        guard vectors.count == 2, let size = vectors.first?.count, size > 0, vectors.allSatisfy({ $0.count == size }) else {
            throw Failure(reason: "embed of two texts gave \(vectors.count) vectors of sizes \(vectors.map(\.count)), not two of one size")
        }
        let norms = vectors.map { $0.reduce(0) { $0 + $1 * $1 }.squareRoot() }
        guard norms.allSatisfy({ abs($0 - 1) < 1e-3 }) else { throw Failure(reason: "the vectors' lengths are \(norms), not 1") }
        let bad = session.nextId()
        try connection.send(.request(id: .integer(bad), method: "embed", params: ["inputs": [1, 2]]))
        guard case .failure(let error) = try await session.response(connection, id: bad), error.code == StdioProtocol.ErrorCode.invalidParams else {
            throw Failure(reason: "embed of a list of numbers was not refused with -32602")
        }
        return "two unit vectors of \(size) dimensions; a list of numbers refused with -32602"
    }

    // MARK: - Helpers

    /// Options for exactly `tokens` tokens, end of generation ignored.
    private static func exactly(_ tokens: Int) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: tokens)
        options.backend.ignoreEndOfGeneration = true
        return options
    }

    /// Skips unless the worker serves at least two requests at once.
    private func requireConcurrent(_ info: WorkerInfo) throws {
        guard info.protocolVersion >= 2 else { throw Skip(reason: "the worker speaks protocol version 1: one request at a time") }
        guard info.concurrentRequests >= 2 else { throw Skip(reason: "the worker serves one request at a time (concurrentRequests 1)") }
    }

    /// Reads until every request of `ids` is answered; `act` sees each arrival and the log so far.
    private func collect(_ session: WorkerCheckSession, _ connection: WorkerConnection, _ ids: [Int],
                         act: (Arrival, [Arrival]) throws -> Void = { _, _ in }) async throws -> [Arrival] {
        var log: [Arrival] = []
        var open = Set(ids)
        while !open.isEmpty {
            // An event for a request already answered is not among `open`: a failure.
            let arrival = try await session.next(connection, among: open)
            log.append(arrival)
            if case .answer(let id, _) = arrival { open.remove(id) }
            try act(arrival, log)
        }
        return log
    }

    /// Request `id` succeeded with `tokens` generated tokens.
    private func expectTokens(_ log: [Arrival], _ id: Int, _ tokens: Int) throws {
        guard case .success(let value)? = log.result(id) else {
            throw Failure(reason: "request \(id) failed: \(String(describing: log.result(id)))")
        }
        guard !log.events(id).isEmpty else { throw Failure(reason: "request \(id) streamed no events") }
        let metrics = try (value["metrics"] ?? .null).decode(Metrics.self)
        guard metrics.generatedTokens == tokens else {
            throw Failure(reason: "request \(id) asked for exactly \(tokens) tokens and generated \(metrics.generatedTokens)")
        }
    }
}

private extension [WorkerCheckSession.Arrival] {
    func events(_ id: Int) -> [ModelEvent] {
        compactMap { if case .event(id, let event) = $0 { event } else { nil } }
    }

    func firstEvent(_ id: Int) -> Int? {
        firstIndex { if case .event(id, _) = $0 { true } else { false } }
    }

    func answer(_ id: Int) -> Int? {
        firstIndex { if case .answer(id, _) = $0 { true } else { false } }
    }

    func result(_ id: Int) -> Result<JSONValue, RPCError>? {
        answer(id).flatMap { if case .answer(_, let result) = self[$0] { result } else { nil } }
    }

    /// How often an event is for another request than the event before it.
    var switches: Int {
        let ids = compactMap { if case .event(let id, _) = $0 { id } else { nil } }
        return zip(ids, ids.dropFirst()).filter { $0 != $1 }.count
    }
}
