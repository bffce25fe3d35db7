import Foundation
@testable import LooplAPI
import Loopl
import Synchronization
import Testing

/// How `loopl serve` resolves model names, and how it starts backends.
@Suite struct ModelDirectoryTests {
    /// How many times a backend was started.
    final class Starts: Sendable {
        let count = Mutex(0)
    }

    /// A kind whose start fails, counting its attempts.
    static func failingKind(_ starts: Starts?) -> BackendKind {
        BackendKind(name: "test", read: { _ in 0 }, start: { _ in
            starts?.count.withLock { $0 += 1 }
            throw LooplError(.modelNotFound, "No model here.")
        })
    }

    static func config(_ text: String, starts: Starts? = nil) throws -> LooplConfig {
        try LooplConfig(json: text, kinds: [failingKind(starts)])
    }

    @Test func namesAliasesTheStarAndTheDefault() throws {
        let config = try Self.config("""
            {"default": "a", "backends": {"a": {"kind": "test", "aliases": ["gpt-4o-mini"]},
                                          "b": {"kind": "test", "aliases": ["*", "claude"]}}}
            """)
        let names = try ModelDirectory(config: config).names
        #expect(names.ids == ["a", "b", "gpt-4o-mini", "claude"])
        #expect(try names.backend(for: nil) == "a")
        #expect(try names.backend(for: "") == "a")
        #expect(try names.backend(for: "gpt-4o-mini") == "a")
        #expect(try names.backend(for: "claude") == "b")
        #expect(try names.backend(for: "anything-else") == "b")
    }

    @Test func anUnknownNameIs404AndAnUnservedDefaultNeedsAName() throws {
        let config = try Self.config(#"{"default": "a", "backends": {"a": {"kind": "test"}, "b": {"kind": "test"}}}"#)
        let names = try ModelDirectory(config: config, served: ["b"]).names
        let unknown = #expect(throws: APIError.self) { try names.backend(for: "a") }
        #expect(unknown?.status == 404 && unknown?.code == "model_not_found")
        let unnamed = #expect(throws: APIError.self) { try names.backend(for: nil) }
        #expect(unnamed?.status == 400 && unnamed?.param == "model")
        #expect(throws: LooplError.self) { try ModelDirectory(config: config, served: ["c"]) }
    }

    @Test func aNameTwoBackendsClaimIsAConfigurationError() throws {
        let clash = try Self.config(#"{"default": "a", "backends": {"a": {"kind": "test", "aliases": ["x"]}, "b": {"kind": "test", "aliases": ["x"]}}}"#)
        #expect(throws: LooplError.self) { try ModelDirectory(config: clash) }
        let stars = try Self.config(#"{"default": "a", "backends": {"a": {"kind": "test", "aliases": ["*"]}, "b": {"kind": "test", "aliases": ["*"]}}}"#)
        #expect(throws: LooplError.self) { try ModelDirectory(config: stars) }
    }

    @Test func aFailedStartIsTriedAgainByTheNextRequest() async throws {
        let starts = Starts()
        let directory = try ModelDirectory(config: try Self.config(#"{"default": "a", "backends": {"a": {"kind": "test"}}}"#, starts: starts))
        for _ in 0..<2 {
            await #expect(throws: LooplError.self) { _ = try await directory.model(for: "a") }
        }
        #expect(starts.count.withLock { $0 } == 2)
        await directory.closeAll()
        await #expect(throws: LooplError.self) { _ = try await directory.model(for: "a") }
        #expect(starts.count.withLock { $0 } == 2, "a closed directory started a backend")
    }

    /// A model that answers nothing and counts its closes.
    struct ClosingModel: Model {
        let closes: Starts
        var contextSize: Int { 4096 }
        func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
            AsyncThrowingStream { $0.finish() }
        }
        func close() async { closes.count.withLock { $0 += 1 } }
    }

    static func closingKind(starts: Starts, closes: Starts) -> BackendKind {
        BackendKind(name: "test", read: { _ in 0 }, capacity: { _ in BackendCapacity(parallel: 1, maxQueue: 4) }, start: { _ in
            starts.count.withLock { $0 += 1 }
            return ClosingModel(closes: closes) as any Model
        })
    }

    @Test func aModelIsLoadedOnDemandUnloadedAndLoadedAgainAndItsStateFollows() async throws {
        let starts = Starts(), closes = Starts()
        let config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "test"}}}"#,
                                     kinds: [Self.closingKind(starts: starts, closes: closes)])
        let directory = try ModelDirectory(config: config)
        #expect(await directory.state(of: "a") == .unloaded)
        _ = try await directory.model(for: "a")
        #expect(await directory.state(of: "a") == .loaded)
        try await directory.unload("a")
        #expect(await directory.state(of: "a") == .unloaded)
        #expect(closes.count.withLock { $0 } == 1, "unloading did not close the model")
        let limit = try #require(directory.limits["a"])
        _ = try await directory.model(for: "a")
        let refused = try await limit.withPlace {
            await #expect(throws: APIError.self) { try await directory.unload("a") }
        }
        #expect(refused?.status == 409)
        #expect(await directory.state(of: "a") == .loaded)
        try await directory.unload("a")
        let unknown = await #expect(throws: APIError.self) { try await directory.unload("nothing") }
        #expect(unknown?.status == 404)
        _ = try await directory.model(for: "a")
        #expect(starts.count.withLock { $0 } == 3, "the model was not loaded again after an unload")
        await directory.closeAll()
    }

    @Test func aFailedStartIsStatedWithItsReason() async throws {
        let directory = try ModelDirectory(config: try Self.config(#"{"default": "a", "backends": {"a": {"kind": "test"}}}"#))
        await #expect(throws: LooplError.self) { _ = try await directory.model(for: "a") }
        #expect(await directory.state(of: "a") == .failed("No model here."))
    }

    @Test func anIdleModelIsUnloadedAfterItsKeepAliveAndAConfigBackendIsKeptByDefault() async throws {
        let starts = Starts(), closes = Starts()
        let config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "test", "keepAlive": "100ms"}, "b": {"kind": "test"}}}"#,
                                     kinds: [Self.closingKind(starts: starts, closes: closes)])
        let directory = try ModelDirectory(config: config)
        _ = try await directory.model(for: "b")
        #expect(await directory.expiry(of: "b") == nil, "a config backend without keepAlive is kept forever")
        _ = try await directory.model(for: "a")
        #expect(await directory.expiry(of: "a") != nil)
        let deadline = ContinuousClock.now + .seconds(60)
        while await directory.state(of: "a") == .loaded, .now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await directory.state(of: "a") == .unloaded && closes.count.withLock { $0 } == 1)
        await directory.finished("b", keepAlive: KeepAlive(seconds: 0))
        #expect(await directory.state(of: "b") == .unloaded, "keep_alive 0 did not unload after the answer")
        await directory.closeAll()
    }

    @Test func withMaxLoadedOneALoadUnloadsTheIdleModelAndWaitsForABusyOne() async throws {
        let starts = Starts(), closes = Starts()
        let config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "test"}, "b": {"kind": "test"}}}"#,
                                     kinds: [Self.closingKind(starts: starts, closes: closes)])
        let directory = try ModelDirectory(config: config, budget: ModelBudget(maxLoaded: 1))
        _ = try await directory.model(for: "a")
        _ = try await directory.model(for: "b")
        #expect(await directory.state(of: "a") == .unloaded && closes.count.withLock { $0 } == 1, "the idle model stayed")
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        let limit = try #require(directory.limits["b"])
        let busy = Task { try await limit.withPlace { for await _ in release {} } }
        while limit.running == 0 { await Task.yield() }
        let load = Task { try await directory.model(for: "a") }
        let deadline = ContinuousClock.now + .seconds(60)
        while await directory.state(of: "a") != .loading, .now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(await directory.state(of: "b") == .loaded, "a busy model was unloaded for another's load")
        released.finish()
        try await busy.value
        await directory.finished("b")
        _ = try await load.value
        let states = (await directory.state(of: "a"), await directory.state(of: "b"))
        #expect(states == (.loaded, .unloaded))
        await directory.closeAll()
    }

    @Test func aModelBiggerThanTheBudgetFailsWithTheFigures() async throws {
        try #require(FileManager.default.fileExists(atPath: LooplHome.defaultModel), "run scripts/bootstrap first")
        let config = try LooplConfig(json: """
            {"default": "a", "backends": {"a": {"kind": "test", "model": "\(LooplHome.defaultModel)", "contextLength": 2048}}}
            """, kinds: [BackendKind(name: "test", read: { ($0.accept("contextLength"), try $0.optionalPath("model")).1 },
                                     start: { _ in throw LooplError(.invalidModel, "not here") })])
        let directory = try ModelDirectory(config: config, budget: ModelBudget(bytes: 50 << 20))
        let error = await #expect(throws: LooplError.self) { _ = try await directory.model(for: "a") }
        #expect(error?.message.contains("needs about") == true && error?.message.contains("budget of 50 MiB") == true, "\(String(describing: error))")
    }
}
