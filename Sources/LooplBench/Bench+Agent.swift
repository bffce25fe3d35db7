import Loopl

extension Bench {
    /// One agent-mode conversation on one backend: its concurrency and its number (from 1).
    private struct AgentKey: Hashable {
        let backend: String, concurrency: Int, conversation: Int
    }

    /// Replays the agent conversation on each backend; with `--concurrency`, N of them at once
    /// (each its own variant and conversation), for each N.
    func runAgent(router: Router, report: inout BenchReport, log: Log) async throws {
        var options = GenerationOptions.greedy(maxTokens: min(maxTokens, 16))
        options.backend.ignoreEndOfGeneration = true
        var ttfts: [AgentKey: [[Double]]] = [:]
        var tokens: [AgentKey: [(prompt: Int, cached: Int)]] = [:]
        for step in BenchPlan(backends: backends, warmup: warmup, runs: runs, reference: false).steps {
            guard case .backend(let name) = step.target else { continue }
            let backend = try await router.model(named: name)
            for count in concurrency.isEmpty ? [1] : concurrency {
                let conversations = try await withThrowingTaskGroup(of: (Int, [(prompt: Int, cached: Int)], [Double]).self) { group in
                    for variant in 0..<count {
                        var turnOptions = options
                        turnOptions.conversation = "bench-agent-\(step.round)-\(count)-\(variant + 1)"
                        group.addTask { [turnOptions] in
                            var counts: [(prompt: Int, cached: Int)] = []
                            var times: [Double] = []
                            for messages in AgentConversation.iterations(variant: variant) {
                                let turn = try await Self.timed { backend.generate(messages: messages, tools: AgentConversation.tools, options: turnOptions) }
                                counts.append(try Self.agentCounts(turn.metrics, backend: name))
                                times.append(turn.ttftMs)
                            }
                            return (variant + 1, counts, times)
                        }
                    }
                    var all: [(Int, [(prompt: Int, cached: Int)], [Double])] = []
                    for try await conversation in group { all.append(conversation) }
                    return all.sorted { $0.0 < $1.0 }
                }
                let evaluated = conversations.map { $0.1.map { String($0.prompt - $0.cached) }.joined(separator: ", ") }
                log("round \(step.round)\(step.measured ? "" : " (warm-up)") \(name)\(count > 1 ? " x\(count)" : ""): evaluated "
                            + evaluated.joined(separator: "; "))
                guard step.measured else { continue }
                for (conversation, counts, times) in conversations {
                    let key = AgentKey(backend: name, concurrency: count, conversation: conversation)
                    ttfts[key, default: []].append(times)
                    tokens[key] = counts
                }
            }
            await backend.close()
        }
        for name in backends {
            for count in concurrency.isEmpty ? [1] : concurrency {
                for conversation in 1...count {
                    let key = AgentKey(backend: name, concurrency: count, conversation: conversation)
                    guard let counts = tokens[key], let runs = ttfts[key] else { continue }
                    for (index, turn) in counts.enumerated() {
                        let previous = index == 0 ? 0 : counts[index - 1].prompt
                        report.rows.append(.agentStep(name, concurrency: count, conversation: conversation, iteration: index + 1,
                                                      prompt: turn.prompt, cached: turn.cached, previousPrompt: previous,
                                                      ttftMs: Spread(runs.map { $0[index] })))
                    }
                }
            }
        }
    }

    /// An agent turn's prompt and cached token counts; a turn that evaluated no token (all of its
    /// prompt reported as cached) is a reporting error, not a perfect reuse.
    static func agentCounts(_ metrics: Metrics, backend: String) throws -> (prompt: Int, cached: Int) {
        guard metrics.promptTokens - metrics.cachedPromptTokens >= 1 else {
            throw LooplError(.protocolViolation, "\(backend) reported \(metrics.cachedPromptTokens) of its \(metrics.promptTokens) prompt tokens "
                             + "as cached: every turn evaluates at least one token, so the backend's cache count is wrong.")
        }
        return (metrics.promptTokens, metrics.cachedPromptTokens)
    }
}
