import Foundation
import Loopl
@testable import LooplStdio
import Testing

/// A worker that writes valid events faster than the host takes them is bounded: the host's
/// memory stays put and the request fails as a protocol violation.
@Suite(.serialized) struct FloodTests {
    @Test(.timeLimit(.minutes(1)))
    func eventFloodIsBoundedAndFails() async throws {
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--fault", "event-flood", "--delay-ms", "0"]),
            initializeTimeout: .seconds(20), idleTimeout: .seconds(20)))
        let before = ProcessWatch.residentKilobytes()
        var grown = 0
        var outcome: (any Error)?
        var sampled = false
        do {
            for try await _ in model.generate(messages: [.user("Hello")], tools: [], options: .greedy(maxTokens: 4)) {
                guard !sampled else { continue }
                // A slow consumer: the worker runs ahead while this one sleeps.
                try await Task.sleep(for: .seconds(4))
                grown = ProcessWatch.residentKilobytes() - before
                sampled = true
                if grown > 300 * 1024 { break }
            }
        } catch {
            outcome = error
        }
        #expect(sampled)
        #expect(grown < 300 * 1024, "the host grew by \(grown / 1024) MiB while the worker flooded it")
        let error = outcome as? LooplError
        #expect(error?.code == .protocolViolation, "\(String(describing: outcome))")
        // Which bound the worker outruns first, its request's events or the lines not yet
        // routed, depends on the machine's load: either is the same violation.
        #expect(error?.message.contains("MiB of") == true && error?.message.contains("that the host has not read yet") == true,
                "\(error?.message ?? "")")
        await model.close()
    }

    /// The events the host has taken from the worker and its consumer has not read stay under
    /// the pipe's 4 MiB (and one message): the host stops reading the worker instead.
    @Test(.timeLimit(.minutes(1)))
    func unreadEventsWaitBounded() async throws {
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--fault", "event-flood", "--delay-ms", "0"]),
            initializeTimeout: .seconds(20), idleTimeout: .seconds(20)))
        let baseline = ModelEventPipe.bufferedBytes.load(ordering: .relaxed)
        var most = 0
        do {
            var events = model.generate(messages: [.user("Hello")], tools: [], options: .greedy(maxTokens: 4)).makeAsyncIterator()
            _ = try await events.next()
            // The consumer reads nothing more for 5 s.
            for _ in 0..<100 {
                most = max(most, ModelEventPipe.bufferedBytes.load(ordering: .relaxed) - baseline)
                if most > 256 << 20 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(most < 8 << 20, "\(most >> 20) MiB of events waited unread")
        await model.close()
        #expect(ModelEventPipe.bufferedBytes.load(ordering: .relaxed) <= baseline, "a dropped stream's events were kept")
    }
}
