@testable import LooplAPI
import Loopl
import Testing

@Suite struct PrometheusTextTests {
    @Test func familiesHaveHelpAndTypeAndLabelsAreEscaped() {
        var text = PrometheusText()
        text.family("loopl_x_total", "counter", "What x counts.\nSecond line.")
        text.sample("loopl_x_total", [("model", "a\"b\\c\nd")], 3)
        #expect(text.text == "# HELP loopl_x_total What x counts.\\nSecond line.\n# TYPE loopl_x_total counter\nloopl_x_total{model=\"a\\\"b\\\\c\\nd\"} 3\n")
    }

    @Test func aHistogramIsCumulativeWithInfSumAndCount() {
        var histogram = Histogram(bounds: [1, 10])
        for value in [0.5, 5, 50, .nan] { histogram.observe(value) }
        var text = PrometheusText()
        text.histogram("h", [("model", "m")], histogram)
        #expect(text.text == """
            h_bucket{model="m",le="1"} 1
            h_bucket{model="m",le="10"} 2
            h_bucket{model="m",le="+Inf"} 3
            h_sum{model="m"} 55.5
            h_count{model="m"} 3

            """)
    }

    @Test func everyServedBackendHasItsSeriesFromTheStart() {
        let metrics = ServeMetrics()
        metrics.finished("a", status: 429)
        metrics.engineLost("a", retried: true)
        let text = metrics.text(limits: ["a": ModelLimit(backend: "a", capacity: BackendCapacity(parallel: 2, maxQueue: 5))])
        #expect(text.contains("loopl_requests_total{model=\"a\",status=\"429\"} 1\n"))
        #expect(text.contains("loopl_max_concurrent{model=\"a\"} 2\n"))
        #expect(text.contains("loopl_max_queue{model=\"a\"} 5\n"))
        #expect(text.contains("loopl_engine_restarts_total{model=\"a\"} 1\n"))
        #expect(text.contains("loopl_engine_retries_total{model=\"a\"} 1\n"))
        #expect(text.contains("loopl_time_to_first_token_seconds_count{model=\"a\"} 0\n"))
    }

    @Test func eachModelsLoadedStateMemoryLoadsAndUnloadsAreSeries() {
        let limits = ["a": ModelLimit(backend: "a", capacity: nil), "b": ModelLimit(backend: "b", capacity: nil)]
        let text = ServeMetrics().text(limits: limits, tallies: ["a": ModelTally(loaded: true, memory: 290_861_760, loads: 2, unloads: 1),
                                                                 "b": ModelTally(loads: 1, unloads: 1)])
        for line in ["loopl_models_loaded 1", "loopl_model_loaded{model=\"a\"} 1", "loopl_model_loaded{model=\"b\"} 0",
                     "loopl_model_memory_bytes{model=\"a\"} 290861760", "loopl_model_memory_bytes{model=\"b\"} 0",
                     "loopl_model_loads_total{model=\"a\"} 2", "loopl_model_unloads_total{model=\"b\"} 1"] {
            #expect(text.contains(line + "\n"), "no \(line)")
        }
        #expect(text.contains("# TYPE loopl_model_loads_total counter\n"))
    }
}
