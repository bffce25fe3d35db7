/// A callable: a global, a macro or a bound method.
final class TemplateFunction {
    let name: String
    let body: (TemplateArguments) throws -> TemplateValue

    init(_ name: String, _ body: @escaping (TemplateArguments) throws -> TemplateValue) {
        self.name = name
        self.body = body
    }
}

/// Positional and keyword arguments of a call.
struct TemplateArguments {
    var positional: [TemplateValue] = []
    var keywords: [(name: String, value: TemplateValue)] = []

    /// The argument at `index` or named `name`, else nil.
    func value(_ index: Int, _ name: String) -> TemplateValue? {
        if index < positional.count { return positional[index] }
        return keywords.first { $0.name == name }?.value
    }
}
