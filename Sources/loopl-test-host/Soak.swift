import Foundation
import Loopl

/// Many short agent runs on one backend instance, as a long-lived host makes them, with this
/// process's descriptors, children and memory before and after.
///
/// Every fifth run must call the calculator (a tool call, its result, and an answer); the others
/// answer in 4 tokens. Greedy sampling throughout.
struct Soak {
    let backend: HostBackend
    let runs: Int

    func run() async throws -> JSONValue {
        let beforeLoad = ResourceSnapshot.now()
        let model = try await backend.start()
        let loaded = ResourceSnapshot.now()
        var start = loaded
        var warm = loaded
        var failures = 0
        var firstFailure: String?
        var toolRuns = 0
        var toolCalls = 0
        // The default model often calls the calculator with an empty expression: a tool error, still a full round.
        var toolErrors = 0
        var tokens = 0
        // Every tenth of the way: [run, fds, rssKB, childRssKB].
        let step = max(1, runs / 10)
        var samples: [JSONValue] = []
        let clock = ContinuousClock.now
        for index in 0..<runs {
            let withTool = index % 5 == 0
            if withTool { toolRuns += 1 }
            let agent = Agent(
                model: model, tools: withTool ? [CalculatorTool()] : [],
                options: AgentOptions(maxIterations: withTool ? 2 : 1, firstToolChoice: withTool ? .required : .auto,
                                      generation: .greedy(maxTokens: withTool ? 48 : 4)))
            let prompt = withTool ? "Use the calculator to compute \(index)*7." : "Say hello to visitor \(index)."
            do {
                for try await event in agent.stream(prompt) {
                    switch event {
                    case .toolFinished(let result):
                        toolCalls += 1
                        if result.isError { toolErrors += 1 }
                    case .metrics(let metrics) where metrics.finished: tokens += metrics.generatedTokens
                    default: break
                    }
                }
            } catch {
                failures += 1
                if firstFailure == nil { firstFailure = "run \(index + 1): \(error)" }
            }
            // The first run allocates what every later run reuses: the baseline is taken after it.
            if index == 0 { start = ResourceSnapshot.now() }
            if (index + 1) % step == 0 || index == 0 {
                let now = ResourceSnapshot.now()
                if index + 1 == step { warm = now }
                samples.append([.integer(index + 1), .integer(now.descriptors), .integer(now.residentKilobytes), .integer(now.childResidentKilobytes)])
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
            "backend": .string(backend.rawValue), "runs": .integer(runs), "seconds": .double((seconds * 100).rounded() / 100),
            "runsPerSecond": .double((Double(runs) / max(seconds, 0.001) * 100).rounded() / 100),
            "failures": .integer(failures), "firstFailure": firstFailure.map(JSONValue.string) ?? .null,
            "toolRuns": .integer(toolRuns), "toolCalls": .integer(toolCalls), "toolErrors": .integer(toolErrors), "generatedTokens": .integer(tokens),
            "beforeLoad": beforeLoad.json, "loaded": loaded.json, "start": start.json, "end": end.json, "closed": closed.json,
            "samples": .array(samples), "rssGrowthPercent": growth(start.residentKilobytes, end.residentKilobytes),
            "childRssGrowthPercent": growth(start.childResidentKilobytes, end.childResidentKilobytes),
            // The allocator's arenas fill over the first dozens of runs; growth after a tenth of the runs shows a leak better.
            "warmRun": .integer(step), "warm": warm.json,
            "rssGrowthFromWarmPercent": growth(warm.residentKilobytes, end.residentKilobytes),
            "childRssGrowthFromWarmPercent": growth(warm.childResidentKilobytes, end.childResidentKilobytes),
        ]
    }
}
