import Loopl

/// The results of `loopl bench`: what was measured and how, per backend, against llama-bench
/// (or llama-batched-bench with `--concurrency`).
///
/// Its JSON form (``json``, ``init(json:)``) is the stable schema of docs/bench.md.
struct BenchReport: Sendable, Equatable {
    static let schemaVersion = 1

    /// One backend's figures over the measured runs.
    struct Row: Sendable, Equatable {
        var backend: String
        var startupMs: Spread
        var ttftMs: Spread
        var overheadMs: Spread?
        var prefillTokensPerSecond: Spread
        var decodeTokensPerSecond: Spread
        /// The speeds of each measured round, in order.
        var prefillByRound: [Double] = []
        var decodeByRound: [Double] = []
        /// Medians over the reference's medians, and the quartiles of the per-round ratios.
        var prefillRatio: Double?
        var decodeRatio: Double?
        var prefillRatioRounds: Quartiles?
        var decodeRatioRounds: Quartiles?
        var hostRSSMiB: Double
        var childRSSMiB: Double
        /// The decode speed the engine reports about itself; ``decodeTokensPerSecond`` is the host-seen one.
        var engineDecodeTokensPerSecond: Spread? = nil
    }

    /// llama-bench's figures: the engine alone.
    struct Reference: Sendable, Equatable {
        var prefillTokensPerSecond: Spread
        var decodeTokensPerSecond: Spread
        var prefillByRound: [Double] = []
        var decodeByRound: [Double] = []
    }

    /// One iteration of an agent conversation on one backend.
    struct AgentStep: Sendable, Equatable {
        var backend: String
        /// How many conversations ran at once on the backend, and which one this is (from 1).
        var concurrency = 1
        var conversation = 1
        var iteration: Int
        var promptTokens: Int
        var cachedPromptTokens: Int
        /// Prompt tokens added since the previous iteration's prompt.
        var newTokens: Int
        /// Median over the runs.
        var ttftMs: Double

        var evaluatedTokens: Int { promptTokens - cachedPromptTokens }
    }

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
    var backends: [Row] = []
    var reference: Reference?
    /// `--concurrency`: by N, then backend, the reference last.
    var throughput: [ThroughputRow] = []
    var agent: [AgentStep] = []

    init(model: String, cores: Int, llamaCppVersion: String, threads: Int, promptTokens: Int, maxTokens: Int, runs: Int, warmup: Int) {
        (self.model, self.cores, self.llamaCppVersion, self.threads) = (model, cores, llamaCppVersion, threads)
        (self.promptTokens, self.maxTokens, self.runs, self.warmup) = (promptTokens, maxTokens, runs, warmup)
    }

    // MARK: - Text

    /// The aligned tables printed on stdout.
    var table: String {
        var tables: [[String]] = []
        if !backends.isEmpty || reference != nil {
            let widths = [12, 11, 9, 12, 12, 7, 6, 11, 7, 6, 11, 9, 10]
            var lines = [Self.row(["backend", "startup ms", "TTFT ms", "overhead ms", "prefill t/s", "vs ref", "IQR",
                                   "decode t/s", "vs ref", "IQR", "engine t/s", "host MiB", "child MiB"], widths)]
            for row in backends {
                lines.append(Self.row([row.backend, Self.fixed(row.startupMs.median), Self.fixed(row.ttftMs.median),
                                       row.overheadMs.map { Self.fixed($0.median) } ?? "-", Self.fixed(row.prefillTokensPerSecond.median),
                                       Self.ratio(row.prefillRatio), Self.iqr(row.prefillRatioRounds),
                                       Self.fixed(row.decodeTokensPerSecond.median), Self.ratio(row.decodeRatio), Self.iqr(row.decodeRatioRounds),
                                       Self.fixed(row.engineDecodeTokensPerSecond?.median), Self.fixed(row.hostRSSMiB), Self.fixed(row.childRSSMiB)], widths))
            }
            if let reference {
                lines.append(Self.row(["llama-bench", "-", "-", "-", Self.fixed(reference.prefillTokensPerSecond.median), "1.000x", "-",
                                       Self.fixed(reference.decodeTokensPerSecond.median), "1.000x", "-",
                                       Self.fixed(reference.decodeTokensPerSecond.median), "-", "-"], widths))
            }
            tables.append(lines)
        }
        if !throughput.isEmpty {
            let widths = [19, 3, 14, 7, 6, 11, 10, 10, 10, 10]
            var lines = [Self.row(["backend", "N", "aggregate t/s", "vs ref", "IQR", "stream t/s", "TTFT p50", "TTFT p95",
                                   "ITL p95", "wall ms"], widths)]
            for row in throughput {
                lines.append(Self.row([row.backend, String(row.concurrency), Self.fixed(row.aggregateDecode.median),
                                       row.backend == ThroughputRow.reference ? "1.000x" : Self.ratio(row.decodeRatio),
                                       Self.iqr(row.decodeRatioRounds), row.streamDecode.map { Self.fixed($0.median) } ?? "-",
                                       Self.fixed(row.ttftP50Ms), Self.fixed(row.ttftP95Ms), Self.fixed(row.interTokenP95Ms),
                                       Self.fixed(row.wallMs.median)], widths))
            }
            tables.append(lines)
        }
        if !agent.isEmpty {
            let widths = [12, 3, 12, 9, 14, 13, 16, 11, 9]
            var lines = [Self.row(["backend", "N", "conversation", "iteration", "prompt tokens", "reused", "evaluated", "new", "TTFT ms"], widths)]
            for step in agent {
                lines.append(Self.row([step.backend, String(step.concurrency), String(step.conversation), String(step.iteration),
                                       String(step.promptTokens), String(step.cachedPromptTokens), String(step.evaluatedTokens),
                                       String(step.newTokens), Self.fixed(step.ttftMs)], widths))
            }
            tables.append(lines)
        }
        return tables.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }

    /// One table row: the first cell left-aligned, the others right-aligned.
    private static func row(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells, widths).enumerated().map { index, pair in
            let pad = String(repeating: " ", count: Swift.max(0, pair.1 - pair.0.count))
            return index == 0 ? pair.0 + pad : pad + pair.0
        }.joined(separator: " ")
    }

    private static func fixed(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
    private static func ratio(_ value: Double?) -> String { value.map { String(format: "%.3fx", $0) } ?? "-" }
    /// The interquartile range of per-round ratios, beside the ratio.
    static func iqr(_ value: Quartiles?) -> String { value.map { String(format: "%.3f", $0.iqr) } ?? "-" }

    // MARK: - JSON

    /// A row's fields with the engine's own decode figure added, beside the host-seen one.
    private func withEngineDecode(_ fields: JSONObject, _ row: Row) -> JSONValue {
        var fields = fields
        fields["engineDecodeTokensPerSecond"] = row.engineDecodeTokensPerSecond?.json ?? .null
        return .object(fields)
    }

    var json: JSONValue {
        func numbers(_ values: [Double]) -> JSONValue { .array(values.map(JSONValue.double)) }
        var object: JSONObject = [
            "schemaVersion": .integer(Self.schemaVersion), "model": .string(model), "cores": .integer(cores),
            "llamaCppVersion": .string(llamaCppVersion), "threads": .integer(threads), "promptTokens": .integer(promptTokens),
            "maxTokens": .integer(maxTokens), "runs": .integer(runs), "warmup": .integer(warmup),
            "concurrency": .array(concurrency.map(JSONValue.integer)),
        ]
        object["backends"] = .array(backends.map { row in
            let fields: JSONObject = ["backend": .string(row.backend), "startupMs": row.startupMs.json, "ttftMs": row.ttftMs.json,
             "overheadMs": row.overheadMs?.json ?? .null, "prefillTokensPerSecond": row.prefillTokensPerSecond.json,
             "decodeTokensPerSecond": row.decodeTokensPerSecond.json, "prefillByRound": numbers(row.prefillByRound),
             "decodeByRound": numbers(row.decodeByRound), "prefillRatio": row.prefillRatio.map(JSONValue.double) ?? .null,
             "decodeRatio": row.decodeRatio.map(JSONValue.double) ?? .null, "prefillRatioRounds": row.prefillRatioRounds?.json ?? .null,
             "decodeRatioRounds": row.decodeRatioRounds?.json ?? .null, "hostRSSMiB": .double(row.hostRSSMiB),
             "childRSSMiB": .double(row.childRSSMiB)]
            return withEngineDecode(fields, row)
        })
        object["reference"] = reference.map { ["prefillTokensPerSecond": $0.prefillTokensPerSecond.json,
                                               "decodeTokensPerSecond": $0.decodeTokensPerSecond.json,
                                               "prefillByRound": numbers($0.prefillByRound), "decodeByRound": numbers($0.decodeByRound)] } ?? .null
        object["throughput"] = .array(throughput.map(\.json))
        object["agent"] = .array(agent.map { step in
            ["backend": .string(step.backend), "concurrency": .integer(step.concurrency), "conversation": .integer(step.conversation),
             "iteration": .integer(step.iteration), "promptTokens": .integer(step.promptTokens),
             "cachedPromptTokens": .integer(step.cachedPromptTokens), "newTokens": .integer(step.newTokens), "ttftMs": .double(step.ttftMs)]
        })
        return .object(object)
    }

    init(json: JSONValue) throws {
        func fail(_ what: String) -> LooplError { LooplError(.invalidRequest, "Not a bench report of schema \(Self.schemaVersion): \(what).") }
        guard json["schemaVersion"]?.intValue == Self.schemaVersion else { throw fail("schemaVersion") }
        func integer(_ key: String) throws -> Int { guard let value = json[key]?.intValue else { throw fail(key) }; return value }
        func numbers(_ value: JSONValue?) -> [Double] { value?.arrayValue?.compactMap(\.doubleValue) ?? [] }
        guard let model = json["model"]?.stringValue, let version = json["llamaCppVersion"]?.stringValue else { throw fail("model") }
        self.init(model: model, cores: try integer("cores"), llamaCppVersion: version, threads: try integer("threads"),
                  promptTokens: try integer("promptTokens"), maxTokens: try integer("maxTokens"), runs: try integer("runs"),
                  warmup: try integer("warmup"))
        concurrency = json["concurrency"]?.arrayValue?.compactMap(\.intValue) ?? []
        for row in json["backends"]?.arrayValue ?? [] {
            guard let name = row["backend"]?.stringValue, let startup = Spread(json: row["startupMs"]), let ttft = Spread(json: row["ttftMs"]),
                  let prefill = Spread(json: row["prefillTokensPerSecond"]), let decode = Spread(json: row["decodeTokensPerSecond"]),
                  let host = row["hostRSSMiB"]?.doubleValue, let child = row["childRSSMiB"]?.doubleValue else { throw fail("a backend row") }
            backends.append(Row(backend: name, startupMs: startup, ttftMs: ttft, overheadMs: Spread(json: row["overheadMs"]),
                                prefillTokensPerSecond: prefill, decodeTokensPerSecond: decode, prefillByRound: numbers(row["prefillByRound"]),
                                decodeByRound: numbers(row["decodeByRound"]), prefillRatio: row["prefillRatio"]?.doubleValue,
                                decodeRatio: row["decodeRatio"]?.doubleValue, prefillRatioRounds: Quartiles(json: row["prefillRatioRounds"]),
                                decodeRatioRounds: Quartiles(json: row["decodeRatioRounds"]), hostRSSMiB: host, childRSSMiB: child,
                                engineDecodeTokensPerSecond: Spread(json: row["engineDecodeTokensPerSecond"])))
        }
        if let prefill = Spread(json: json["reference"]?["prefillTokensPerSecond"]),
           let decode = Spread(json: json["reference"]?["decodeTokensPerSecond"]) {
            reference = Reference(prefillTokensPerSecond: prefill, decodeTokensPerSecond: decode,
                                  prefillByRound: numbers(json["reference"]?["prefillByRound"]),
                                  decodeByRound: numbers(json["reference"]?["decodeByRound"]))
        }
        for row in json["throughput"]?.arrayValue ?? [] {
            guard let parsed = ThroughputRow(json: row) else { throw fail("a throughput row") }
            throughput.append(parsed)
        }
        for step in json["agent"]?.arrayValue ?? [] {
            guard let name = step["backend"]?.stringValue, let iteration = step["iteration"]?.intValue, let prompt = step["promptTokens"]?.intValue,
                  let cached = step["cachedPromptTokens"]?.intValue, let new = step["newTokens"]?.intValue,
                  let ttft = step["ttftMs"]?.doubleValue else { throw fail("an agent row") }
            agent.append(AgentStep(backend: name, concurrency: step["concurrency"]?.intValue ?? 1, conversation: step["conversation"]?.intValue ?? 1,
                                   iteration: iteration, promptTokens: prompt, cachedPromptTokens: cached, newTokens: new, ttftMs: ttft))
        }
    }
}
