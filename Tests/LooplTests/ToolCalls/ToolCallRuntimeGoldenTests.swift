import Loopl
import Testing

/// Readings of model outputs taken from other runtimes' parser tests (vLLM, Ollama), in
/// Tests/Data/ToolCalls/runtime-goldens.json, each case naming its source: parsed whole under its
/// format and `.auto`, and streamed at every split, always to the same result.
@Suite struct ToolCallRuntimeGoldenTests {
    static let rows = GoldenCase.cases("runtime-goldens.json")

    @Test func goldensArePresent() {
        #expect(Self.rows.count >= 70)
        #expect(Set(Self.rows.map(\.id)).count == Self.rows.count)
        #expect(Self.rows.allSatisfy { $0.source?.isEmpty == false })
    }

    /// The goal: at least 99% read right under `--format auto` (each case is also checked on its own below).
    @Test func autoReadsNearlyAll() {
        let misses = Self.rows.filter { $0.sameUnderAuto && !$0.matches($0.parser(.auto).parse($0.text)) }.map(\.id)
        let right = Self.rows.count - misses.count
        #expect(Double(right) >= 0.99 * Double(Self.rows.count), "\(right)/\(Self.rows.count) under auto")
        #expect(misses.isEmpty, "known misses: none; now missed under auto: \(misses)")
    }

    @Test(arguments: rows)
    func parsesLikeOtherRuntimes(_ row: GoldenCase) {
        for format in row.formats {
            row.check(row.parser(format).parse(row.text), under: format)
        }
    }

    @Test(arguments: rows)
    func streamsToTheSameResult(_ row: GoldenCase) {
        row.checkStreamsAlike()
    }
}
