import Loopl

/// The results of `loopl bench`: what was measured and how, per backend, against llama-bench
/// (or llama-batched-bench with `--concurrency`).
///
/// Its JSON form (``json``, ``init(json:)``) is the stable schema of docs/bench.md.
struct BenchReport: Sendable, Equatable {
    /// 2: one list of ``BenchRow``s, in place of version 1's `backends`, `reference`, `throughput` and `agent`.
    static let schemaVersion = 2

    var model: String
    var cores: Int
    var llamaCppVersion: String
    var threads: Int
    var promptTokens: Int
    var maxTokens: Int
    var runs: Int
    var warmup: Int
    /// The concurrencies of `--concurrency`, ascending; empty without it.
    var concurrency: [Int] = []
    /// The speed rows in the order of `--backends`, llama-bench's last; with `--concurrency`, by N,
    /// then backend, llama-batched-bench's last; in agent mode, by backend, N, conversation and iteration.
    var rows: [BenchRow] = []

    init(model: String, cores: Int, llamaCppVersion: String, threads: Int, promptTokens: Int, maxTokens: Int, runs: Int, warmup: Int) {
        (self.model, self.cores, self.llamaCppVersion, self.threads) = (model, cores, llamaCppVersion, threads)
        (self.promptTokens, self.maxTokens, self.runs, self.warmup) = (promptTokens, maxTokens, runs, warmup)
    }

    // MARK: - Rows

    /// The speed table's backend rows, without the reference.
    var backends: [BenchRow] { rows.filter { $0.workload == .speed && !$0.isReference } }
    /// llama-bench's row in the speed table.
    var reference: BenchRow? { rows.first { $0.workload == .speed && $0.isReference } }
    var throughput: [BenchRow] { rows.filter { $0.workload == .throughput } }
    var agent: [BenchRow] { rows.filter { $0.workload == .agent } }

    // MARK: - Text

    /// The aligned tables printed on stdout.
    var table: String {
        var tables: [[String]] = []
        let speed = rows.filter { $0.workload == .speed }
        if !speed.isEmpty {
            let widths = [12, 11, 9, 12, 12, 7, 6, 11, 7, 6, 11, 9, 10]
            var lines = [Self.row(["backend", "startup ms", "TTFT ms", "overhead ms", "prefill t/s", "vs ref", "IQR",
                                   "decode t/s", "vs ref", "IQR", "engine t/s", "host MiB", "child MiB"], widths)]
            for row in speed {
                let vs = { (ratio: Double?) in row.isReference ? "1.000x" : Self.ratio(ratio) }
                lines.append(Self.row([row.name, Self.fixed(row.startupMs?.median), Self.fixed(row.ttftMs?.median),
                                       Self.fixed(row.overheadMs?.median), Self.fixed(row.prefillTokensPerSecond?.median),
                                       vs(row.prefillRatio), Self.iqr(row.prefillRatioRounds),
                                       Self.fixed(row.decodeTokensPerSecond?.median), vs(row.decodeRatio), Self.iqr(row.decodeRatioRounds),
                                       Self.fixed((row.isReference ? row.decodeTokensPerSecond : row.engineDecodeTokensPerSecond)?.median),
                                       Self.fixed(row.hostRSSMiB), Self.fixed(row.childRSSMiB)], widths))
            }
            tables.append(lines)
        }
        if !throughput.isEmpty {
            let widths = [19, 3, 14, 7, 6, 11, 10, 10, 10, 10]
            var lines = [Self.row(["backend", "N", "aggregate t/s", "vs ref", "IQR", "stream t/s", "TTFT p50", "TTFT p95",
                                   "ITL p95", "wall ms"], widths)]
            for row in throughput {
                lines.append(Self.row([row.name, String(row.concurrency), Self.fixed(row.decodeTokensPerSecond?.median),
                                       row.isReference ? "1.000x" : Self.ratio(row.decodeRatio),
                                       Self.iqr(row.decodeRatioRounds), Self.fixed(row.streamDecodeTokensPerSecond?.median),
                                       Self.fixed(row.ttftP50Ms), Self.fixed(row.ttftP95Ms), Self.fixed(row.interTokenP95Ms),
                                       Self.fixed(row.wallMs?.median)], widths))
            }
            tables.append(lines)
        }
        if !agent.isEmpty {
            let widths = [12, 3, 12, 9, 14, 13, 16, 11, 9]
            var lines = [Self.row(["backend", "N", "conversation", "iteration", "prompt tokens", "reused", "evaluated", "new", "TTFT ms"], widths)]
            for step in agent {
                lines.append(Self.row([step.name, String(step.concurrency), Self.count(step.conversation), Self.count(step.iteration),
                                       Self.count(step.promptTokens), Self.count(step.cachedPromptTokens), Self.count(step.evaluatedTokens),
                                       Self.count(step.newTokens), Self.fixed(step.ttftMs?.median ?? 0)], widths))
            }
            tables.append(lines)
        }
        return tables.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }

    /// One table row: the first cell left-aligned, the others right-aligned.
    static func row(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells, widths).enumerated().map { index, pair in
            let pad = String(repeating: " ", count: Swift.max(0, pair.1 - pair.0.count))
            return index == 0 ? pair.0 + pad : pad + pair.0
        }.joined(separator: " ")
    }

    static func fixed(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
    private static func count(_ value: Int?) -> String { value.map(String.init) ?? "-" }
    private static func ratio(_ value: Double?) -> String { value.map { String(format: "%.3fx", $0) } ?? "-" }
    /// The interquartile range of per-round ratios, beside the ratio.
    static func iqr(_ value: Quartiles?) -> String { value.map { String(format: "%.3f", $0.iqr) } ?? "-" }

    // MARK: - JSON

    var json: JSONValue {
        let rows = self.rows.map { row in (try? JSONValue(encoding: row)) ?? .null }
        return ["schemaVersion": .integer(Self.schemaVersion), "model": .string(model), "cores": .integer(cores),
                "llamaCppVersion": .string(llamaCppVersion), "threads": .integer(threads), "promptTokens": .integer(promptTokens),
                "maxTokens": .integer(maxTokens), "runs": .integer(runs), "warmup": .integer(warmup),
                "concurrency": .array(concurrency.map(JSONValue.integer)), "rows": .array(rows)]
    }

    init(json: JSONValue) throws {
        func fail(_ what: String) -> LooplError { LooplError(.invalidRequest, "Not a bench report of schema \(Self.schemaVersion): \(what).") }
        guard json["schemaVersion"]?.intValue == Self.schemaVersion else { throw fail("schemaVersion") }
        func integer(_ key: String) throws -> Int { guard let value = json[key]?.intValue else { throw fail(key) }; return value }
        guard let model = json["model"]?.stringValue, let version = json["llamaCppVersion"]?.stringValue else { throw fail("model") }
        self.init(model: model, cores: try integer("cores"), llamaCppVersion: version, threads: try integer("threads"),
                  promptTokens: try integer("promptTokens"), maxTokens: try integer("maxTokens"), runs: try integer("runs"),
                  warmup: try integer("warmup"))
        concurrency = json["concurrency"]?.arrayValue?.compactMap(\.intValue) ?? []
        rows = try (json["rows"] ?? .array([])).decode([BenchRow].self)
    }
}
