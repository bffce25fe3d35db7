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
}
