#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
import LooplLlama
@testable import LooplStdio
import Testing

/// Decode speed and time to first token over stdio against in-process, measured on the host side
/// the same way for both (medians of interleaved runs), and the per-event cost of the transport.
/// Opt-in, on a quiet machine: LOOPL_BENCH=1 swift test --filter StdioBenchmarkTests
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["LOOPL_BENCH"] != nil))
struct StdioBenchmarkTests {
    struct Run { var ttft: Duration; var tokensPerSecond: Double }

    static func measure(_ model: any Model, tokens: Int) async throws -> Run {
        var options = GenerationOptions.greedy(maxTokens: tokens)
        options.backend.ignoreEndOfGeneration = true
        let start = ContinuousClock.now
        var first: ContinuousClock.Instant?
        var last = start
        var generated = 0
        for try await event in model.generate(messages: [.user("Tell me about the sea.")], tools: [], options: options) {
            switch event {
            case .text:
                last = ContinuousClock.now
                if first == nil { first = last }
            case .metrics(let metrics): generated = metrics.generatedTokens
            case .toolCall, .reasoning: break
            }
        }
        let firstToken = first ?? last
        return Run(ttft: firstToken - start, tokensPerSecond: Double(generated - 1) / (last - firstToken).seconds)
    }

    static func median<T: Comparable>(_ values: [T]) -> T { values.sorted()[values.count / 2] }

    @Test(.timeLimit(.minutes(20)))
    func stdioAgainstInProcess() async throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let local = try await LlamaModel.start(.init(model: Fixtures.modelPath, contextLength: 1024, threads: 2))
        let remote = try await StdioModel.start(StdioModel.Configuration(
            command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config], initializeTimeout: .seconds(60)))
        _ = try await Self.measure(local, tokens: 8)
        _ = try await Self.measure(remote, tokens: 8)
        var localRuns: [Run] = []
        var remoteRuns: [Run] = []
        for _ in 0..<5 {
            localRuns.append(try await Self.measure(local, tokens: 64))
            remoteRuns.append(try await Self.measure(remote, tokens: 64))
        }
        await local.close()
        await remote.close()
        let localSpeed = Self.median(localRuns.map(\.tokensPerSecond))
        let remoteSpeed = Self.median(remoteRuns.map(\.tokensPerSecond))
        let localTTFT = Self.median(localRuns.map(\.ttft))
        let remoteTTFT = Self.median(remoteRuns.map(\.ttft))
        print("""
            BENCH in-process: \(String(format: "%.1f", localSpeed)) tok/s, TTFT \(String(format: "%.1f", localTTFT.milliseconds)) ms
            BENCH stdio:      \(String(format: "%.1f", remoteSpeed)) tok/s, TTFT \(String(format: "%.1f", remoteTTFT.milliseconds)) ms
            BENCH ratio \(String(format: "%.3f", remoteSpeed / localSpeed)), TTFT overhead \(String(format: "%.1f", (remoteTTFT - localTTFT).milliseconds)) ms
            """)
        #expect(remoteSpeed >= 0.96 * localSpeed)
        #expect(remoteTTFT - localTTFT <= .milliseconds(10))
    }

    @Test(.timeLimit(.minutes(5)))
    func perEventCost() async throws {
        let model = try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python(["--delay-ms", "0"])))
        var options = GenerationOptions.greedy(maxTokens: 5000)
        options.backend.ignoreEndOfGeneration = true
        var costs: [Double] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            var events = 0
            for try await event in model.generate(messages: [.user("Hello")], tools: [], options: options) {
                if case .text = event { events += 1 }
            }
            // Every token arrives as its own event, none dropped or merged on the way.
            #expect(events == 5000, "\(events) text events for 5000 tokens")
            costs.append((ContinuousClock.now - start).seconds * 1e6 / Double(max(events, 1)))
        }
        await model.close()
        #expect(costs.allSatisfy { $0 > 0 && $0.isFinite }, "\(costs)")
        print("BENCH per event (host and Python worker together): \(String(format: "%.1f", Self.median(costs))) µs")
    }
}
#endif
