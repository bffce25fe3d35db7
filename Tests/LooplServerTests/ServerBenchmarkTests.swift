#if canImport(LooplLlama)
import Foundation
import Loopl
import LooplLlama
import LooplServer
import LooplTestKit
import Testing

/// Decode speed and time to first token through llama-server against its own timings and against
/// the in-process backend, medians of interleaved runs. Run with LOOPL_BENCH=1 on a quiet machine;
/// LOOPL_BENCH=server leaves out the in-process side and checks the host against the server only.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["LOOPL_BENCH"] != nil))
struct ServerBenchmarkTests {
    struct Sample {
        var hostDecode: Double
        var reportedDecode: Double
        var ttftMs: Double
    }

    static func measure(_ model: any Model, tokens: Int) async throws -> Sample {
        var options = GenerationOptions.greedy(maxTokens: tokens)
        options.backend.ignoreEndOfGeneration = true
        let start = ContinuousClock.now
        var first: ContinuousClock.Instant?
        var last = start
        var final: Metrics?
        for try await event in model.generate(messages: ModelConformance.greeting, tools: [], options: options) {
            switch event {
            case .text:
                let now = ContinuousClock.now
                if first == nil { first = now }
                last = now
            case .metrics(let metrics) where metrics.finished: final = metrics
            default: break
            }
        }
        let metrics = try #require(final)
        let first_ = try #require(first)
        let decodeSeconds = Double((last - first_).components.attoseconds) / 1e18 + Double((last - first_).components.seconds)
        let ttft = (first_ - start)
        return Sample(hostDecode: Double(metrics.generatedTokens - 1) / decodeSeconds,
                      reportedDecode: metrics.tokensPerSecond ?? 0,
                      ttftMs: (Double(ttft.components.seconds) + Double(ttft.components.attoseconds) / 1e18) * 1000)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    @Test(.timeLimit(.minutes(20)))
    func decodeAndFirstToken() async throws {
        let threads = 2
        let withInProcess = ProcessInfo.processInfo.environment["LOOPL_BENCH"] != "server"
        let started = ContinuousClock.now
        let server = try await LlamaServerModel.start(.init(rendering: .server, contextLength: 2048, threads: threads))
        let ready = ContinuousClock.now - started
        let local = withInProcess ? try await LlamaModel.start(.init(contextLength: 2048, threads: threads)) : nil
        _ = try await Self.measure(server, tokens: 16)
        if let local { _ = try await Self.measure(local, tokens: 16) }
        var remote: [Sample] = []
        var inProcess: [Sample] = []
        for _ in 0..<5 {
            remote.append(try await Self.measure(server, tokens: 128))
            if let local { inProcess.append(try await Self.measure(local, tokens: 128)) }
        }
        let hostDecode = Self.median(remote.map(\.hostDecode))
        let serverDecode = Self.median(remote.map(\.reportedDecode))
        let ratios = remote.map { $0.hostDecode / $0.reportedDecode }
        print("""
            BENCH ready \(ready) (load \(await server.loadTime.map { "\($0)" } ?? "?"))
            BENCH decode tok/s: host sees \(hostDecode), llama-server timings \(serverDecode); host/timings median \(Self.median(ratios)) of \(ratios)
            BENCH ttft ms (server): \(Self.median(remote.map(\.ttftMs)))
            """)
        await server.close()
        await local?.close()
        // What the host receives against what the server says it decoded: a transport that held
        // tokens back or slowed their arrival shows here (measured at 1.000 under load).
        #expect(Self.median(ratios) >= 0.95, "the host sees \(Self.median(ratios))x of llama-server's own decode speed: \(ratios)")
        if !inProcess.isEmpty {
            let localDecode = Self.median(inProcess.map(\.hostDecode))
            let localTTFT = Self.median(inProcess.map(\.ttftMs))
            let ratio = hostDecode / localDecode
            print("BENCH in-process decode \(localDecode) tok/s, server/in-process \(ratio); ttft in-process \(localTTFT) ms")
            // The goal of docs/bench.md, as `loopl bench` prints it.
            print("server decode vs llama  \(String(format: "%.3fx", ratio))  >= 0.960x  \(ratio >= 0.96 ? "ok" : "MISSED")")
            #expect(ratio >= 0.96, "server decode is \(ratio)x of in-process, under the 0.96x goal")
        }
    }
}
#endif
