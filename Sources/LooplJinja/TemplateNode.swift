/// What `set` and `for` assign to.
indirect enum TemplateTarget: Sendable {
    case name(String)
    case tuple([TemplateTarget])
    case attribute(String, String)
}

/// A statement of a parsed template.
indirect enum TemplateNode: Sendable {
    case text(String)
    case output(TemplateExpression, line: Int)
    case conditional([(condition: TemplateExpression, body: [TemplateNode])], otherwise: [TemplateNode], line: Int)
    case loop(TemplateLoopNode)
    case set(TemplateTarget, TemplateExpression, line: Int)
    case setBlock(TemplateTarget, filters: [(name: String, arguments: [TemplateArgument])], body: [TemplateNode], line: Int)
    case macro(TemplateMacroNode)
    /// `{% call(parameters) macro(arguments) %}body{% endcall %}`: the macro sees the body as `caller`.
    case callBlock(TemplateMacroNode, call: TemplateExpression, line: Int)
    case filterBlock([(name: String, arguments: [TemplateArgument])], body: [TemplateNode], line: Int)
    /// `{% with a = x %}body{% endwith %}`: the values are read outside, the names set inside only.
    case with([(target: TemplateTarget, value: TemplateExpression)], body: [TemplateNode], line: Int)
    /// `{% block name %}`: with no parent template, the body in place; it sees the template's
    /// variables, and those of enclosing loops and macros only when `scoped`.
    case block([TemplateNode], scoped: Bool)
    case breakLoop
    case continueLoop
}

/// A `for` block.
struct TemplateLoopNode: Sendable {
    let target: TemplateTarget
    let iterable: TemplateExpression
    let filter: TemplateExpression?
    let body: [TemplateNode]
    let otherwise: [TemplateNode]
    let recursive: Bool
    let line: Int
}
