import Foundation
import Loopl
import Testing

@Suite struct TemplateBenchmarkTests {
    /// Measures Qwen2.5 with the 18-message conversation; LOOPL_BENCH=ITERATIONS prints the figures
    /// (compare with scripts/template-bench, best in a release build: swift test -c release).
    @Test func measuresQwenConversation() throws {
        let name = "Qwen-Qwen2.5-7B-Instruct"
        let context = try #require(TemplateGoldens.contexts["bench_18"]?.objectValue)
        let expected = try #require(try TemplateGoldens.json("goldens/\(name).json")["bench_18"]?["output"]?.stringValue)
        let iterations = Int(ProcessInfo.processInfo.environment["LOOPL_BENCH"] ?? "") ?? 5
        let result = try TemplateBenchmark.measure(source: try TemplateGoldens.source(name), context: context,
                                                   iterations: iterations, now: TemplateGoldens.now)
        #expect(result.output == expected)
        #expect(result.compileSeconds > 0 && result.renderSeconds > 0)
        if ProcessInfo.processInfo.environment["LOOPL_BENCH"] != nil {
            print(String(format: "loopl template bench %@ bench_18: compile %.4f ms, render %.4f ms, %d iterations",
                         name, result.compileSeconds * 1e3, result.renderSeconds * 1e3, result.iterations))
        }
    }
}
