/// An expression of the template language.
indirect enum TemplateExpression: Sendable {
    case none
    case bool(Bool)
    case integer(Int)
    case float(Double)
    case string(String)
    case name(String)
    case list([TemplateExpression])
    case tuple([TemplateExpression])
    case dict([(key: TemplateExpression, value: TemplateExpression)])
    case attribute(TemplateExpression, String)
    case item(TemplateExpression, TemplateExpression)
    case slice(TemplateExpression, start: TemplateExpression?, stop: TemplateExpression?, step: TemplateExpression?)
    case call(TemplateExpression, [TemplateArgument])
    case filter(TemplateExpression, String, [TemplateArgument])
    case test(TemplateExpression, String, [TemplateArgument], negated: Bool)
    case negate(TemplateExpression)
    case plus(TemplateExpression)
    case not(TemplateExpression)
    case and(TemplateExpression, TemplateExpression)
    case or(TemplateExpression, TemplateExpression)
    case binary(String, TemplateExpression, TemplateExpression)
    case compare(TemplateExpression, [(op: String, rhs: TemplateExpression)])
    case conditional(then: TemplateExpression, condition: TemplateExpression, otherwise: TemplateExpression?)
}

/// A call's argument: `value`, `name=value`, `*iterable` (more positional arguments)
/// or `**mapping` (more keyword arguments).
struct TemplateArgument: Sendable {
    enum Kind: Sendable, Equatable {
        case positional
        case keyword(String)
        case unpacked
        case unpackedKeywords
    }

    let kind: Kind
    let value: TemplateExpression
}
