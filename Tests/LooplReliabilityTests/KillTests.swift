import Foundation
import Loopl
import Testing

/// SIGKILL at the worst moments. Short versions: 2 kills mid-generation per backend with a child,
/// 10 kills mid-save. scripts/killtest runs the long versions (20 and 50) and writes their figures.
@Suite(.serialized) struct KillTests {
    /// The host of a llama-server child or a `loopl worker` child dies mid-generation: the child
    /// must be gone within 5 s.
    @Test(.timeLimit(.minutes(5)), arguments: ["server", "stdio"])
    func childDiesWithItsHostMidGeneration(_ backend: String) async throws {
        let figures = try await TestHost.figures(["kill", backend, "2"])
        #expect(figures["survivors"] == 0, "a child outlived its killed host by 5 s: \(figures.jsonText())")
        #expect(figures["childrenPerHost"] == [1, 1], "each host should have exactly one child: \(figures.jsonText())")
    }

    /// A host dies mid-save: the session file holds the old or the new conversation, and loads.
    @Test(.timeLimit(.minutes(2)))
    func sessionFileSurvivesAKillMidSave() async throws {
        let figures = try await TestHost.figures(["kill", "save", "10"])
        #expect(figures["broken"] == 0, "a kill left a broken session file: \(figures.jsonText())")
        #expect(figures["firstContent"]?.intValue.map { $0 + (figures["secondContent"]?.intValue ?? 0) } == 10)
    }

    /// `loopl run --session` dies at a random moment of a tool run (from a seed the figures
    /// print), once while a call runs: the file holds every message the run had reported, and
    /// `--resume` finishes the run.
    @Test(.timeLimit(.minutes(3)))
    func aKilledRunLeavesEveryCompleteTurnAndResumes() async throws {
        let figures = try await TestHost.figures(["kill", "run", "4"])
        #expect((figures["killedWithCallPending"]?.intValue ?? 0) >= 1, "no trial was killed with a call pending: \(figures.jsonText())")
        #expect(figures["broken"] == 0, "\(figures.jsonText())")
        #expect(figures["missingTurns"] == 0, "\(figures.jsonText())")
        #expect(figures["resumeFailures"] == 0, "\(figures.jsonText())")
    }
}
