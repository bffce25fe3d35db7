import Foundation
import Loopl
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Throughput of ``ToolCallParser`` on plain prose and on call-dense text, in megabytes per second
/// of the thread's CPU time (so that other work on a shared machine does not skew it). Runs only
/// with LOOPL_BENCH=1 (`LOOPL_BENCH=1 swift test -c release --filter ToolCallBenchmark`); the
/// goal on plain text (docs/bench.md, declared in Sources/LooplBench/goals.json) is printed, and
/// checked in release builds.
@Suite struct ToolCallBenchmarkTests {
    static let enabled = ProcessInfo.processInfo.environment["LOOPL_BENCH"] != nil

    /// The `parser` goal of goals.json, in MB/s.
    static func goal() throws -> Double {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/LooplBench/goals.json")
        let goals = try JSONValue(parsing: String(contentsOf: url, encoding: .utf8))["goals"]?.arrayValue ?? []
        return try #require(goals.first { $0["id"]?.stringValue == "parser" }?["atLeast"]?.doubleValue)
    }

    static func plainText(megabytes: Int) -> String {
        let paragraph = """
            The quick brown fox jumps over the lazy dog; functions, arrays [1, 2] and a < b are fine. \
            Agents call tools when asked, and otherwise they answer in prose like this — with ünïcödé too.

            """
        return String(repeating: paragraph, count: megabytes * 1_048_576 / paragraph.utf8.count)
    }

    static func callDenseText(megabytes: Int) -> String {
        let turn = "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>\n"
        return String(repeating: turn, count: megabytes * 1_048_576 / turn.utf8.count)
    }

    /// The CPU time this thread has used, in seconds (wall time where that is not available).
    static func cpuSeconds() -> Double {
        #if canImport(Glibc)
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
        #else
        return Date().timeIntervalSinceReferenceDate
        #endif
    }

    /// Megabytes per CPU second of `parse` on `text`, best of three.
    static func throughput(_ text: String, format: ToolCallFormat) -> Double {
        let parser = ToolCallParser(format: format)
        var best = Double.infinity
        for _ in 0..<3 {
            let start = cpuSeconds()
            let result = parser.parse(text)
            best = min(best, cpuSeconds() - start)
            #expect(!result.content.isEmpty || !result.toolCalls.isEmpty)
        }
        return Double(text.utf8.count) / 1_048_576 / max(best, 1e-9)
    }

    @Test(.enabled(if: enabled)) func throughput() throws {
        let goal = try Self.goal()
        let plain = Self.plainText(megabytes: 32)
        let dense = Self.callDenseText(megabytes: 8)
        let plainAuto = Self.throughput(plain, format: .auto)
        let plainHermes = Self.throughput(plain, format: .hermes)
        let denseAuto = Self.throughput(dense, format: .auto)
        print("ToolCallParser throughput MB/s: plain auto \(Int(plainAuto)), plain hermes \(Int(plainHermes)), call-dense auto \(Int(denseAuto))")
        print("parser plain text (auto)  \(Int(plainAuto)) MB/s  >= \(Int(goal)) MB/s  \(plainAuto >= goal ? "ok" : "MISSED")")
        #if !DEBUG
        #expect(plainAuto >= goal)
        #endif
        #expect(denseAuto > 0)
    }
}
