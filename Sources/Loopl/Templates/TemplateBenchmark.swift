/// Times parsing and rendering a template, for `loopl bench` and for comparing with Python's jinja2
/// (scripts/template-bench prints the same figures for jinja2).
public enum TemplateBenchmark {
    /// Mean times: rendering over `iterations` runs after a warm-up, parsing over a tenth as many.
    public struct Result: Sendable, Hashable {
        public var iterations: Int
        /// Seconds to parse the template once.
        public var compileSeconds: Double
        /// Seconds to render it once with the context.
        public var renderSeconds: Double
        /// Size of the rendered text in UTF-8 bytes.
        public var outputBytes: Int
    }

    public static func measure(source: String, context: JSONObject, iterations: Int = 1000,
                               now: TemplateTime = TemplateTime(year: 2026, month: 1, day: 1)) throws -> Result {
        let count = max(1, iterations)
        let clock = ContinuousClock()
        var template = try ChatTemplate(source: source)
        let compile = try clock.measure {
            for _ in 0..<max(1, count / 10) { template = try ChatTemplate(source: source) }
        }
        var output = try template.render(context: context, now: now)
        let render = try clock.measure {
            for _ in 0..<count { output = try template.render(context: context, now: now) }
        }
        func seconds(_ d: Duration) -> Double {
            Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        return Result(iterations: count, compileSeconds: seconds(compile) / Double(max(1, count / 10)),
                      renderSeconds: seconds(render) / Double(count), outputBytes: output.utf8.count)
    }
}
