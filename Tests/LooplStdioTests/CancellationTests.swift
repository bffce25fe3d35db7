import Foundation
import Loopl
@testable import LooplStdio
import LooplTestKit
import Testing

/// Cancelling the consumer sends $/cancelRequest; the worker stops and answers, and is kept.
@Suite(.serialized) struct CancellationTests {
    /// One request at a time, so the next one waits for the cancelled one's answer; the worker's
    /// record shows the cancel for that request's id and the -32800 it answered.
    @Test(.timeLimit(.minutes(1)))
    func cancellationReachesTheWorkerAndStopsIt() async throws {
        let record = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: record) }
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--delay-ms", "50", "--record", record]), cancellationGrace: .seconds(5), parallel: 1))
        let pid = model.workerPID
        var options = GenerationOptions.greedy(maxTokens: 1000)
        options.backend.ignoreEndOfGeneration = true
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var count = 0
            for try await event in model.generate(messages: [.user("Hello")], tools: [], options: options) {
                if case .text = event { count += 1; if count == 1 { started.continuation.yield() } }
            }
            return count
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        let cancelledAt = ContinuousClock.now
        consumer.cancel()
        let count = (try? await consumer.value) ?? 0
        #expect(count < 100, "the stream went on after the cancellation: \(count) chunks")
        let next = try await Fixtures.collect(model)
        #expect(next.text == "Hello! How can")
        // 1000 chunks of 50 ms would take 50 s; answering within seconds means the worker stopped.
        #expect(ContinuousClock.now - cancelledAt < .seconds(5))
        #expect(model.workerPID == pid, "the worker was killed instead of answering the cancellation")
        await model.close()
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        func messages(_ mark: String) throws -> [JSONValue] {
            try lines.filter { $0.hasPrefix(mark) }.map { try JSONValue(parsing: Data($0.dropFirst(2).utf8)) }
        }
        let read = try messages("< "), written = try messages("> ")
        let id = try #require(read.first { $0["method"] == "generate" }?["id"])
        #expect(read.contains { $0["method"] == "$/cancelRequest" && $0["params"]?["id"] == id },
                "the worker read no $/cancelRequest for request \(id): \(read.compactMap { $0["method"] })")
        let answer = written.first { $0["id"] == id && $0["method"] == nil }
        #expect(answer?["error"]?["code"] == -32800, "the worker answered the cancelled request with \(answer?.jsonText() ?? "nothing")")
    }

    @Test(.timeLimit(.minutes(1)))
    func aWorkerThatIgnoresCancellationIsStoppedAfterTheGrace() async throws {
        // `stall` stops writing and reading the cancellation's answer never comes. One request at a
        // time, so the next one waits for the stalled worker's end instead of joining it in flight.
        let record = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: record) }
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--fault", "stall", "--fault-once", Fixtures.markerPath(), "--record", record]),
            cancellationGrace: .seconds(1), parallel: 1))
        let pid = try #require(model.workerPID)
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for try await event in model.generate(messages: [.user("Hello")], tools: [], options: .greedy(maxTokens: 8)) {
                if case .text = event { started.continuation.yield() }
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        #expect(await Fixtures.waitForRecord(record, "# frozen"), "the worker did not stall")
        consumer.cancel()
        _ = try? await consumer.value
        let next = try await Fixtures.collect(model)
        #expect(next.text == "Hello! How can")
        #expect(model.workerPID != pid)
        #expect(!ProcessWatch.isRunning(pid))
        await model.close()
    }
}
