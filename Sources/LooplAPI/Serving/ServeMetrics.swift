import Loopl
import Synchronization

/// What `loopl serve` counts for `GET /metrics`, by backend: requests by status, tokens, the time
/// to the first token and the decode speed, and engines lost (each restarts) and turns retried.
/// The requests in flight and waiting, and the limits, are read from each ``ModelLimit``.
package final class ServeMetrics: Sendable {
    private struct Counts {
        var requests: [Int: Int] = [:]
        var promptTokens = 0
        var cachedPromptTokens = 0
        var generatedTokens = 0
        var timeToFirstToken = Histogram.timeToFirstToken
        var decodeSpeed = Histogram.decodeSpeed
        var engineRestarts = 0
        var retries = 0
    }

    /// The status counted for a request whose client went away before its answer ended.
    static let clientClosed = 499

    private let counts = Mutex<[String: Counts]>([:])

    package init() {}

    /// Counts one request on `backend` that ended with `status`.
    func finished(_ backend: String, status: Int) {
        update(backend) { $0.requests[status, default: 0] += 1 }
    }

    /// Counts the tokens and timings of a finished generation.
    func generated(_ backend: String, _ metrics: Metrics) {
        update(backend) { counts in
            counts.promptTokens += metrics.promptTokens
            counts.cachedPromptTokens += metrics.cachedPromptTokens
            counts.generatedTokens += metrics.generatedTokens
            if let ttft = metrics.ttftMs { counts.timeToFirstToken.observe(ttft / 1000) }
            if let speed = metrics.tokensPerSecond { counts.decodeSpeed.observe(speed) }
        }
    }

    /// Counts an engine lost mid-turn (the backend starts a new one), and whether the turn was tried again.
    func engineLost(_ backend: String, retried: Bool) {
        update(backend) { counts in
            counts.engineRestarts += 1
            if retried { counts.retries += 1 }
        }
    }

    private func update(_ backend: String, _ change: (inout Counts) -> Void) {
        counts.withLock { change(&$0[backend, default: Counts()]) }
    }

    /// The metrics in Prometheus's text format, one series per backend in `limits`, with the
    /// models' `tallies` (loaded, memory, loads and unloads).
    func text(limits: [String: ModelLimit], tallies: [String: ModelTally] = [:]) -> String {
        let all = counts.withLock { $0 }
        let backends = limits.keys.sorted()
        let rows = backends.map { (name: $0, counts: all[$0] ?? Counts(), limit: limits[$0]) }
        var out = PrometheusText()
        func each(_ name: String, _ type: String, _ help: String, _ value: (Counts, ModelLimit?) -> Double?) {
            out.family(name, type, help)
            for row in rows { if let number = value(row.counts, row.limit) { out.sample(name, [("model", row.name)], number) } }
        }
        out.family("loopl_requests_total", "counter", "Requests that reached a model, by the HTTP status they ended with (499: the client went away).")
        for row in rows {
            for (status, count) in row.counts.requests.sorted(by: { $0.key < $1.key }) {
                out.sample("loopl_requests_total", [("model", row.name), ("status", String(status))], Double(count))
            }
        }
        each("loopl_requests_in_flight", "gauge", "Requests the model is serving now.") { _, limit in limit.map { Double($0.running) } }
        each("loopl_requests_queued", "gauge", "Requests waiting for a place (at most max_queue).") { _, limit in limit.map { Double($0.waiting) } }
        each("loopl_max_concurrent", "gauge", "The most requests the model serves at once through the server (maxConcurrent, else parallel).") { _, limit in
            limit?.capacity.map { Double($0.parallel) }
        }
        each("loopl_max_queue", "gauge", "The most requests that may wait for a place (maxQueue); one more gets 429.") { _, limit in
            limit?.capacity.map { Double($0.maxQueue) }
        }
        each("loopl_prompt_tokens_total", "counter", "Prompt tokens of finished generations, cached ones included.") { counts, _ in Double(counts.promptTokens) }
        each("loopl_cached_prompt_tokens_total", "counter", "Prompt tokens reused from a cache.") { counts, _ in Double(counts.cachedPromptTokens) }
        each("loopl_generated_tokens_total", "counter", "Tokens generated.") { counts, _ in Double(counts.generatedTokens) }
        out.family("loopl_time_to_first_token_seconds", "histogram", "Seconds from the request to its first generated token.")
        for row in rows { out.histogram("loopl_time_to_first_token_seconds", [("model", row.name)], row.counts.timeToFirstToken) }
        out.family("loopl_decode_tokens_per_second", "histogram", "Decode speed of finished generations, tokens per second after the first.")
        for row in rows { out.histogram("loopl_decode_tokens_per_second", [("model", row.name)], row.counts.decodeSpeed) }
        each("loopl_engine_restarts_total", "counter", "Engines lost mid-turn (a worker, child or server that died); the backend starts a new one.") { counts, _ in
            Double(counts.engineRestarts)
        }
        each("loopl_engine_retries_total", "counter", "Turns tried again after their engine was lost before the first token.") { counts, _ in Double(counts.retries) }
        out.family("loopl_models_loaded", "gauge", "Models loaded now.")
        out.sample("loopl_models_loaded", [], Double(tallies.values.filter(\.loaded).count))
        func model(_ name: String, _ type: String, _ help: String, _ value: (ModelTally) -> Int) {
            out.family(name, type, help)
            for backend in backends { out.sample(name, [("model", backend)], Double(value(tallies[backend] ?? ModelTally()))) }
        }
        model("loopl_model_loaded", "gauge", "1 while the model is loaded, else 0.") { $0.loaded ? 1 : 0 }
        model("loopl_model_memory_bytes", "gauge", "The bytes the model was admitted with to the memory budget while loaded or loading.") { $0.memory }
        model("loopl_model_loads_total", "counter", "Loads of the model that succeeded.") { $0.loads }
        model("loopl_model_unloads_total", "counter", "Unloads of the model: on request, by keep-alive, or to make room.") { $0.unloads }
        return out.text
    }
}
