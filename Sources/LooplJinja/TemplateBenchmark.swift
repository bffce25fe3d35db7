import LooplJSON

/// Times parsing and rendering a template, for `loopl bench` and for comparing with Python's jinja2
/// (scripts/template-bench prints the same figures for jinja2).
package enum TemplateBenchmark {
    /// Mean times of the fastest of ten batches (so other load on the machine counts less): rendering
    /// `iterations` times in all after a warm-up, parsing a tenth as often.
    package struct Result: Sendable, Hashable {
        package var iterations: Int
        /// Seconds to parse the template once.
        package var compileSeconds: Double
        /// Seconds to render it once with the context.
        package var renderSeconds: Double
        /// The text of the last render.
        package var output: String
        /// Size of the rendered text in UTF-8 bytes.
        package var outputBytes: Int { output.utf8.count }
    }

    package static func measure(source: String, context: JSONObject, iterations: Int = 1000,
                               now: TemplateTime = TemplateTime(year: 2026, month: 1, day: 1)) throws -> Result {
        let count = max(1, iterations)
        let clock = ContinuousClock()
        func seconds(_ d: Duration) -> Double {
            Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        var template = try JinjaTemplate(source: source)
        var output = try template.render(context: context, now: now)
        let compileBatch = max(1, count / 100), renderBatch = max(1, count / 10)
        var compile = Double.infinity, render = Double.infinity
        for _ in 0..<10 {
            let c = try clock.measure {
                for _ in 0..<compileBatch { template = try JinjaTemplate(source: source) }
            }
            compile = min(compile, seconds(c) / Double(compileBatch))
            let r = try clock.measure {
                for _ in 0..<renderBatch { output = try template.render(context: context, now: now) }
            }
            render = min(render, seconds(r) / Double(renderBatch))
        }
        return Result(iterations: count, compileSeconds: compile, renderSeconds: render, output: output)
    }
}
