/// A `macro` definition, or the body of a `call` block (which the macro it calls sees as `caller`).
struct TemplateMacroNode: Sendable {
    let name: String
    let parameters: [(name: String, defaultValue: TemplateExpression?)]
    let body: [TemplateNode]
    let line: Int
    /// Whether the body reads `varargs`, `kwargs` or `caller`: as in Jinja, only then does the macro
    /// take extra positional arguments, extra keyword arguments, or a caller.
    let catchesVarargs: Bool
    let catchesKeywords: Bool
    let takesCaller: Bool

    init(name: String, parameters: [(name: String, defaultValue: TemplateExpression?)], body: [TemplateNode], line: Int) {
        self.name = name
        self.parameters = parameters
        self.body = body
        self.line = line
        var names = Set<String>()
        TemplateNode.collectNames(body, into: &names)
        catchesVarargs = names.contains("varargs")
        catchesKeywords = names.contains("kwargs")
        takesCaller = names.contains("caller")
    }

    /// The local variables of a call, bound as Jinja binds them: positional arguments first, then
    /// keywords for the parameters left, then `caller`, `kwargs` and `varargs`. Parameters neither
    /// given nor bound are returned, for their defaults.
    func bind(_ arguments: TemplateArguments) throws -> (locals: TemplateScope, unbound: [Int]) {
        let locals = TemplateScope()
        var keywords = arguments.keywords
        func take(_ name: String) -> TemplateValue? {
            guard let i = keywords.firstIndex(where: { $0.name == name }) else { return nil }
            return keywords.remove(at: i).value
        }
        let positional = arguments.positional
        var unbound: [Int] = []
        for (i, parameter) in parameters.enumerated() {
            if i < positional.count {
                locals[parameter.name] = positional[i]
            } else if let value = take(parameter.name) {
                locals[parameter.name] = value
            } else {
                unbound.append(i)
            }
        }
        // A `caller` parameter is the caller, unless a positional argument filled it while others stayed open.
        let callerParameters = positional.count < parameters.count ? parameters.dropFirst(positional.count) : parameters[...]
        if takesCaller && !callerParameters.contains(where: { $0.name == "caller" }) {
            locals["caller"] = take("caller") ?? .undefined("No caller defined")
        }
        if catchesKeywords {
            var dictionary = TemplateDictionary()
            for (key, value) in keywords { dictionary[key] = value }
            locals["kwargs"] = .dict(dictionary)
        } else if let first = keywords.first {
            if keywords.contains(where: { $0.name == "caller" }) {
                throw TemplateFailure("macro '\(name)' was invoked with two values for the special caller argument. This is most likely a bug.")
            }
            throw TemplateFailure("macro '\(name)' takes no keyword argument '\(first.name)'")
        }
        if catchesVarargs {
            locals["varargs"] = .tuple(Array(positional.dropFirst(parameters.count)))
        } else if positional.count > parameters.count {
            throw TemplateFailure("macro '\(name)' takes not more than \(parameters.count) argument(s)")
        }
        return (locals, unbound)
    }
}

extension TemplateNode {
    /// Every variable name the nodes read, nested blocks and macros included.
    static func collectNames(_ nodes: [TemplateNode], into names: inout Set<String>) {
        for node in nodes {
            switch node {
            case .text, .breakLoop, .continueLoop: break
            case .output(let expression, _), .set(_, let expression, _):
                TemplateExpression.collectNames(expression, into: &names)
            case .conditional(let branches, let otherwise, _):
                for branch in branches {
                    TemplateExpression.collectNames(branch.condition, into: &names)
                    collectNames(branch.body, into: &names)
                }
                collectNames(otherwise, into: &names)
            case .loop(let loop):
                TemplateExpression.collectNames(loop.iterable, into: &names)
                if let filter = loop.filter { TemplateExpression.collectNames(filter, into: &names) }
                collectNames(loop.body + loop.otherwise, into: &names)
            case .setBlock(_, let filters, let body, _), .filterBlock(let filters, let body, _):
                for filter in filters { TemplateExpression.collectNames(filter.arguments, into: &names) }
                collectNames(body, into: &names)
            case .with(let assignments, let body, _):
                for assignment in assignments { TemplateExpression.collectNames(assignment.value, into: &names) }
                collectNames(body, into: &names)
            case .block(let body, _):
                collectNames(body, into: &names)
            case .macro(let macro):
                collectNames(macro, into: &names)
            case .callBlock(let caller, let call, _):
                collectNames(caller, into: &names)
                TemplateExpression.collectNames(call, into: &names)
            }
        }
    }

    private static func collectNames(_ macro: TemplateMacroNode, into names: inout Set<String>) {
        for case let value? in macro.parameters.map(\.defaultValue) { TemplateExpression.collectNames(value, into: &names) }
        collectNames(macro.body, into: &names)
    }
}

extension TemplateExpression {
    static func collectNames(_ arguments: [TemplateArgument], into names: inout Set<String>) {
        for argument in arguments { collectNames(argument.value, into: &names) }
    }

    /// Every variable name the expression reads.
    static func collectNames(_ expression: TemplateExpression, into names: inout Set<String>) {
        switch expression {
        case .none, .bool, .integer, .float, .string: break
        case .name(let name): names.insert(name)
        case .list(let items), .tuple(let items):
            for item in items { collectNames(item, into: &names) }
        case .dict(let pairs):
            for pair in pairs {
                collectNames(pair.key, into: &names)
                collectNames(pair.value, into: &names)
            }
        case .attribute(let base, _), .negate(let base), .plus(let base), .not(let base):
            collectNames(base, into: &names)
        case .item(let base, let key):
            collectNames(base, into: &names)
            collectNames(key, into: &names)
        case .slice(let base, let start, let stop, let step):
            for part in [base, start, stop, step] { if let part { collectNames(part, into: &names) } }
        case .call(let base, let arguments), .filter(let base, _, let arguments), .test(let base, _, let arguments, _):
            collectNames(base, into: &names)
            collectNames(arguments, into: &names)
        case .and(let left, let right), .or(let left, let right), .binary(_, let left, let right):
            collectNames(left, into: &names)
            collectNames(right, into: &names)
        case .compare(let first, let operations):
            collectNames(first, into: &names)
            for operation in operations { collectNames(operation.rhs, into: &names) }
        case .conditional(let then, let condition, let otherwise):
            collectNames(then, into: &names)
            collectNames(condition, into: &names)
            if let otherwise { collectNames(otherwise, into: &names) }
        }
    }
}
