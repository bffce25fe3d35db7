import Foundation
import Loopl

/// Many short agent runs on one backend instance, as a long-lived host makes them, `concurrency`
/// at a time, with this process's descriptors, children and memory before and after.
///
/// Every fifth run must call the calculator (a tool call, its result, and an answer); the others
/// answer in 4 tokens. Greedy sampling throughout. With a concurrency over 1, that many agents run
/// at once on the one model, each its own conversation; a run that ends makes room for the next.
struct Soak {
    let backend: HostBackend
    let runs: Int
    var concurrency = 1

    /// What one run did.
    private struct Outcome: Sendable {
        var withTool: Bool
        var toolCalls = 0
        // The default model often calls the calculator with an empty expression: a tool error, still a full round.
        var toolErrors = 0
        var tokens = 0
        var failure: String?
    }

    /// The outcomes of the runs so far, added up.
    private struct Tally {
        var toolRuns = 0, toolCalls = 0, toolErrors = 0, tokens = 0, failures = 0
        /// The runs that had to call the calculator and did.
        var toolRunsCalling = 0
        var firstFailure: String?

        mutating func add(_ outcome: Outcome) {
            if outcome.withTool { toolRuns += 1 }
            if outcome.withTool, outcome.toolCalls > 0 { toolRunsCalling += 1 }
            toolCalls += outcome.toolCalls
            toolErrors += outcome.toolErrors
            tokens += outcome.tokens
            if let failure = outcome.failure {
                failures += 1
                if firstFailure == nil { firstFailure = failure }
            }
        }
    }

    private static func run(_ index: Int, on model: any Model) async -> Outcome {
        let withTool = index % 5 == 0
        var outcome = Outcome(withTool: withTool)
        let agent = Agent(
            model: model, tools: withTool ? [CalculatorTool()] : [],
            options: AgentOptions(maxIterations: withTool ? 2 : 1, firstToolChoice: withTool ? .required : .auto,
                                  generation: .greedy(maxTokens: withTool ? 48 : 4)))
        let prompt = withTool ? "Use the calculator to compute \(index)*7." : "Say hello to visitor \(index)."
        do {
            for try await event in agent.stream(prompt) {
                switch event {
                case .toolFinished(let result):
                    outcome.toolCalls += 1
                    if result.isError { outcome.toolErrors += 1 }
                case .metrics(let metrics) where metrics.finished: outcome.tokens += metrics.generatedTokens
                default: break
                }
            }
        } catch {
            outcome.failure = "run \(index + 1): \(error)"
        }
        return outcome
    }

    func run() async throws -> JSONValue {
        let beforeLoad = ResourceSnapshot.now()
        let model = try await backend.start()
        let loaded = ResourceSnapshot.now()
        var start = loaded
        var warm = loaded
        var tally = Tally()
        // Every tenth of the way: [run, fds, rssKB, childRssKB].
        let step = max(1, runs / 10)
        let atOnce = max(1, min(concurrency, runs))
        var samples: [JSONValue] = []
        let clock = ContinuousClock.now
        await withTaskGroup(of: Outcome.self) { group in
            for index in 0..<atOnce { group.addTask { await Self.run(index, on: model) } }
            var next = atOnce
            var completed = 0
            for await outcome in group {
                completed += 1
                tally.add(outcome)
                // The first runs allocate what every later run reuses (a sequence each, when
                // several run at once): the baseline is taken once as many have ended as run at once.
                if completed == atOnce { start = ResourceSnapshot.now() }
                if completed % step == 0 || completed == 1 {
                    let now = ResourceSnapshot.now()
                    if completed == step { warm = now }
                    samples.append([.integer(completed), .integer(now.descriptors), .integer(now.residentKilobytes), .integer(now.childResidentKilobytes)])
                }
                if next < runs {
                    let index = next
                    group.addTask { await Self.run(index, on: model) }
                    next += 1
                }
            }
        }
        let seconds = (ContinuousClock.now - clock) / .seconds(1)
        let end = ResourceSnapshot.now()
        await model.close()
        let closed = ResourceSnapshot.now()
        func growth(_ from: Int, _ to: Int) -> JSONValue {
            from > 0 ? .double((Double(to - from) / Double(from) * 10_000).rounded() / 100) : .null
        }
        return [
            "backend": .string(backend.rawValue), "runs": .integer(runs), "concurrency": .integer(atOnce),
            "seconds": .double((seconds * 100).rounded() / 100),
            "runsPerSecond": .double((Double(runs) / max(seconds, 0.001) * 100).rounded() / 100),
            "failures": .integer(tally.failures), "firstFailure": tally.firstFailure.map(JSONValue.string) ?? .null,
            "toolRuns": .integer(tally.toolRuns), "toolRunsCalling": .integer(tally.toolRunsCalling), "toolCalls": .integer(tally.toolCalls), "toolErrors": .integer(tally.toolErrors),
            "generatedTokens": .integer(tally.tokens),
            "beforeLoad": beforeLoad.json, "loaded": loaded.json, "start": start.json, "end": end.json, "closed": closed.json,
            "startRun": .integer(atOnce), "samples": .array(samples), "rssGrowthPercent": growth(start.residentKilobytes, end.residentKilobytes),
            "childRssGrowthPercent": growth(start.childResidentKilobytes, end.childResidentKilobytes),
            // The allocator's arenas fill over the first dozens of runs; growth after a tenth of the runs shows a leak better.
            "warmRun": .integer(step), "warm": warm.json,
            "rssGrowthFromWarmPercent": growth(warm.residentKilobytes, end.residentKilobytes),
            "childRssGrowthFromWarmPercent": growth(warm.childResidentKilobytes, end.childResidentKilobytes),
        ]
    }
}
