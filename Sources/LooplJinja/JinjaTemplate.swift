import LooplJSON

/// A parsed Jinja template with jinja2's ImmutableSandboxedEnvironment semantics as Hugging Face
/// transformers configures them (`trim_blocks`, `lstrip_blocks`, loop controls, `{% generation %}`,
/// `tojson`, `raise_exception` and `strftime_now`).
///
/// Parse once, render many times; a value is immutable and safe to share between tasks.
public struct JinjaTemplate: Sendable {
    /// The template text as given.
    public let source: String
    /// Limits that stop a runaway render.
    public var limits: TemplateLimits
    let nodes: [TemplateNode]

    /// Parses `source`; a syntax error throws a ``JinjaError`` naming line and column.
    public init(source: String, limits: TemplateLimits = TemplateLimits()) throws(JinjaError) {
        self.source = source
        self.limits = limits
        do {
            var parser = try TemplateParser(source: source)
            nodes = try parser.parse()
        } catch let error as JinjaError {
            throw error
        } catch {
            throw JinjaError("Template syntax error: \(error).")
        }
    }

    /// Renders with every key of `context` as a template variable (JSON null is `none`).
    ///
    /// `now` is the instant `strftime_now` formats; nil means `LOOPL_TEMPLATE_NOW` or the clock.
    /// `raise_exception(msg)` throws a ``JinjaError`` with `msg` unchanged; other failures name the template line.
    public func render(context: JSONObject, now: TemplateTime? = nil) throws(JinjaError) -> String {
        let variables = TemplateScope(context.lazy.map { ($0.key, TemplateValue($0.value)) })
        let renderer = TemplateRenderer(context: variables, limits: limits, now: now ?? TemplateTime.current())
        do {
            return try renderer.render(nodes)
        } catch let failure as TemplateFailure {
            if failure.raised { throw JinjaError(failure.message, raised: true) }
            var message = failure.message
            if message.hasSuffix(".") { message.removeLast() }
            throw JinjaError("Template error at line \(failure.line ?? renderer.line): \(message).")
        } catch let error as JinjaError {
            throw error
        } catch {
            throw JinjaError("Template error at line \(renderer.line): \(error).")
        }
    }
}
