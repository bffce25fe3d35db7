import Foundation
import Synchronization
import LooplFuzz
import Testing

/// The short version of scripts/fuzz: every committed seed (crash inputs included, so each fixed
/// crash stays fixed), then a fixed number of seeded random mutations of the seeds per target, so
/// that every run tries the same inputs whatever the machine's speed.
/// A crash stops the test process; a hang fails the test when the run outlives its bound; a
/// broken property (streamed parsing against whole parsing) fails it with the input.
/// LOOPL_FUZZ_INPUTS sets the mutations per target (default 2000); LOOPL_FUZZ_SEED the seed;
/// LOOPL_FUZZ_SLOWEST=DIR writes each target's slowest input to DIR/<target>.
@Suite struct FuzzCorpusTests {
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/Fuzz")
    static let environment = ProcessInfo.processInfo.environment
    static let mutations = Int(environment["LOOPL_FUZZ_INPUTS"] ?? "") ?? 2000
    static let seed = UInt64(environment["LOOPL_FUZZ_SEED"] ?? "") ?? 11
    /// The most one input may take before the run counts as hung.
    static let slowestAllowed: Duration = .seconds(10)

    static func corpus(_ name: String) throws -> [[UInt8]] {
        let directory = seeds.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try files.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// What one run did.
    struct Figures: Sendable {
        var executions = 0
        var slowest: Duration = .zero
        var slowestInput: [UInt8] = []
        /// The first property broken, and its input.
        var broken: (property: String, input: [UInt8])?
    }

    /// Runs `target` on the seeds, then on `mutations` of them, on a thread of its own; stops at an
    /// input slower than `slowestAllowed`. Nil when the run outlives 50 ms an input and `grace`
    /// beyond that (a hang).
    static func run(_ target: FuzzTarget, corpus: [[UInt8]], mutations: Int, seed: UInt64,
                    slowestAllowed: Duration = slowestAllowed, grace: Double = 60) -> Figures? {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex(Figures())
        let thread = Thread {
            let clock = ContinuousClock()
            var figures = Figures()
            var mutator = ByteMutator(seed: seed)
            for index in 0..<(corpus.count + mutations) {
                let input = index < corpus.count
                    ? corpus[index]
                    : mutator.mutate(corpus[mutator.below(corpus.count)], corpus: corpus, dictionary: target.dictionary)
                let start = clock.now
                let broken = target.run(input)
                let took = clock.now - start
                figures.executions += 1
                if let broken, figures.broken == nil { figures.broken = (broken, input) }
                if took > figures.slowest { (figures.slowest, figures.slowestInput) = (took, input) }
                if took > slowestAllowed { break }
            }
            result.withLock { $0 = figures }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        let bound = DispatchTime.now() + Double(corpus.count + mutations) * 0.05 + grace
        guard done.wait(timeout: bound) == .success else { return nil }
        return result.withLock { $0 }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func seedsAndMutationsNeitherCrashNorHang(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let corpus = try Self.corpus(name)
        #expect(!corpus.isEmpty, "no seeds in Tests/Data/Fuzz/\(name)")
        guard !corpus.isEmpty else { return }
        let figures = try #require(Self.run(target, corpus: corpus, mutations: Self.mutations, seed: Self.seed),
                                   "\(name) did not finish: an input hangs (seed \(Self.seed))")
        #expect(figures.slowest <= Self.slowestAllowed,
                "\(name): one input took \(figures.slowest): \(String(decoding: figures.slowestInput.prefix(300), as: UTF8.self).debugDescription)")
        #expect(figures.executions == corpus.count + Self.mutations, "\(name) ran \(figures.executions) inputs")
        if let broken = figures.broken {
            Issue.record("\(name): \(broken.property.prefix(600)), on \(String(decoding: broken.input.prefix(300), as: UTF8.self).debugDescription)")
        }
        if let directory = Self.environment["LOOPL_FUZZ_SLOWEST"] {
            try Data(figures.slowestInput).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        print("[fuzz] \(name): \(figures.executions) executions (\(corpus.count) seeds, then \(Self.mutations) mutations), slowest \(figures.slowest)")
    }

    @Test func aBrokenPropertyIsReported() throws {
        let picky = FuzzTarget(name: "picky", dictionary: []) { bytes in bytes == [2] ? "two" : nil }
        let figures = try #require(Self.run(picky, corpus: [[1], [2], [3]], mutations: 0, seed: 1))
        #expect(figures.broken?.property == "two")
        #expect(figures.broken?.input == [2])
    }

    @Test func aHangIsReported() {
        let release = DispatchSemaphore(value: 0)
        let hanging = FuzzTarget(name: "hang", dictionary: []) { _ in release.wait(); return nil }
        #expect(Self.run(hanging, corpus: [[1]], mutations: 0, seed: 1, grace: 0.5) == nil)
        release.signal()
    }

    @Test func aSlowInputIsReported() throws {
        let slow = FuzzTarget(name: "slow", dictionary: []) { bytes in
            if bytes.first == 2 { Thread.sleep(forTimeInterval: 0.3) }
            return nil
        }
        let figures = try #require(Self.run(slow, corpus: [[1], [2], [3]], mutations: 0, seed: 1, slowestAllowed: .milliseconds(100)))
        #expect(figures.slowest > .milliseconds(100))
        #expect(figures.slowestInput == [2])
        #expect(figures.executions == 2, "the run stops at the slow input")
    }
}
