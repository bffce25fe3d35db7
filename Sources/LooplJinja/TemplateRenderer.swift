import Foundation

/// Executes a parsed template once, writing its output.
final class TemplateRenderer {
    private enum Flow { case normal, breakLoop, continueLoop }

    let limits: TemplateLimits
    /// The size bound that every built string or list is checked against first.
    let budget: TemplateBudget
    let now: TemplateTime
    private var output = ""
    private var scopes: [TemplateScope]
    private(set) var line = 1
    private var iterations = 0
    private var callDepth = 0
    /// Namespaces made during the render, emptied at its end in case a template made one hold itself.
    var namespaces: [TemplateNamespace] = []
    /// Scopes that macros see, emptied at the end of the render: a macro stored in a scope it sees is a cycle.
    private var closedOver: [ObjectIdentifier: TemplateScope] = [:]

    init(context: TemplateScope, limits: TemplateLimits, now: TemplateTime) {
        self.limits = limits
        budget = TemplateBudget(maxBytes: limits.maxAllocationBytes)
        self.now = now
        scopes = [context]
    }

    func render(_ nodes: [TemplateNode]) throws -> String {
        defer {
            for namespace in namespaces { namespace.attributes = TemplateDictionary() }
            for scope in closedOver.values { scope.removeAll() }
        }
        _ = try execute(nodes)
        return output
    }

    // MARK: Statements

    private func write(_ text: String) throws {
        output += text
        if output.utf8.count > limits.maxOutputBytes {
            throw TemplateFailure("the output grew past \(limits.maxOutputBytes) bytes; the template may be in a runaway loop")
        }
    }

    private func countIteration() throws {
        iterations += 1
        if iterations > limits.maxIterations {
            throw TemplateFailure("more than \(limits.maxIterations) loop iterations or macro calls; the template may be in a runaway loop")
        }
    }

    /// The output of `body`, written aside.
    func capture(_ body: () throws -> Void) throws -> String {
        let saved = output
        output = ""
        defer { output = saved }
        try body()
        return output
    }

    private func execute(_ nodes: [TemplateNode]) throws -> Flow {
        for node in nodes {
            let flow = try execute(node)
            if flow != .normal { return flow }
        }
        return .normal
    }

    /// Runs one statement; a flow other than `.normal` ends the enclosing bodies up to the loop.
    private func execute(_ node: TemplateNode) throws -> Flow {
        switch node {
        case .text(let text):
            try write(text)
        case .output(let expression, let line):
            self.line = line
            try output(expression)
        case .conditional(let branches, let otherwise, let line):
            self.line = line
            return try execute(try branches.first { try evaluate($0.condition).isTruthy }?.body ?? otherwise)
        case .loop(let loop):
            self.line = loop.line
            let items = try evaluate(loop.iterable)
            try runLoop(loop, items: items, depth: 0)
        case .set(let target, let expression, let line):
            self.line = line
            try assign(target, try evaluate(expression))
        case .setBlock(let target, let filters, let body, let line):
            try assign(target, try filtered(body, filters, line: line))
        case .macro(let macro):
            scopes[scopes.count - 1][macro.name] = .function(makeMacro(macro))
        case .callBlock(let caller, let call, let line):
            self.line = line
            try callBlock(caller, call)
        case .filterBlock(let filters, let body, let line):
            try write(try filtered(body, filters, line: line).text)
        case .with(let assignments, let body, let line):
            self.line = line
            let values = try assignments.map { try evaluate($0.value) }
            scopes.append(TemplateScope())
            defer { scopes.removeLast() }
            for (assignment, value) in zip(assignments, values) { try assign(assignment.target, value) }
            return try execute(body)
        case .block(let body, let scoped):
            let saved = scopes
            scopes = (scoped ? scopes : [scopes[0]]) + [TemplateScope()]
            defer { scopes = saved }
            return try execute(body)
        case .breakLoop:
            return .breakLoop
        case .continueLoop:
            return .continueLoop
        }
        return .normal
    }

    /// The output of `body` written aside, through `filters`.
    private func filtered(_ body: [TemplateNode], _ filters: [(name: String, arguments: [TemplateArgument])],
                          line: Int) throws -> TemplateValue {
        var value = TemplateValue.string(try capture { _ = try execute(body) })
        self.line = line
        for filter in filters { value = try applyFilter(filter.name, to: value, filter.arguments) }
        return value
    }

    /// `{% call %}`: the macro called with the block as `caller`.
    private func callBlock(_ caller: TemplateMacroNode, _ call: TemplateExpression) throws {
        guard case .call(let callee, let arguments) = call else { return }
        let function = try evaluate(callee)
        var evaluated = try evaluateArguments(arguments)
        evaluated.keywords.append(("caller", .function(makeMacro(caller))))
        guard case .function(let macro) = function else {
            throw TemplateFailure("'\(function.typeName)' object is not callable")
        }
        try write(try macro.body(evaluated).text)
    }

    /// Writes `{{ expression }}`; a chain of `+` or `~` writes its parts without building the whole string.
    private func output(_ expression: TemplateExpression) throws {
        guard case .binary(let op, _, _) = expression, op == "+" || op == "~" else {
            try write(try evaluate(expression).text)
            return
        }
        var parts: [TemplateExpression] = []
        var node = expression
        while case .binary(op, let left, let right) = node {
            parts.append(right)
            node = left
        }
        parts.append(node)
        var values: [TemplateValue] = []
        values.reserveCapacity(parts.count)
        for part in parts.reversed() { values.append(try evaluate(part)) }
        let allStrings = op == "~" || values.allSatisfy { if case .string = $0 { true } else { false } }
        if allStrings {
            for value in values { try write(value.text) }
            return
        }
        var result = values[0]
        for value in values.dropFirst() {
            try budget.checkBinary(op, result, value)
            result = try TemplateOperators.binary(op, result, value)
        }
        try write(result.text)
    }

    private func assign(_ target: TemplateTarget, _ value: TemplateValue) throws {
        // Assignment is how a value can grow deeper step by step; keep its nesting shallow enough
        // to print, compare and free without exhausting the stack.
        switch value {
        case .list, .tuple, .dict, .namespace:
            if value.nestingDepth() > TemplateValue.maxDepth {
                throw TemplateFailure("a value nested more than \(TemplateValue.maxDepth) levels deep")
            }
        default: break
        }
        switch target {
        case .name(let name):
            scopes[scopes.count - 1][name] = value
        case .tuple(let targets):
            let values = try value.iterated()
            guard values.count == targets.count else {
                throw TemplateFailure(values.count < targets.count ? "not enough values to unpack (expected \(targets.count), got \(values.count))"
                                                                   : "too many values to unpack (expected \(targets.count))")
            }
            for (target, item) in zip(targets, values) { try assign(target, item) }
        case .attribute(let name, let attribute):
            guard case .namespace(let namespace) = lookup(name) else {
                throw TemplateFailure("cannot assign attribute on non-namespace object")
            }
            namespace.attributes[attribute] = value
        }
    }

    private func runLoop(_ loop: TemplateLoopNode, items value: TemplateValue, depth: Int) throws {
        var items = try value.iterated()
        if let filter = loop.filter {
            scopes.append(TemplateScope())
            defer { scopes.removeLast() }
            items = try items.filter { item in
                try assign(loop.target, item)
                return try evaluate(filter).isTruthy
            }
        }
        if items.isEmpty {
            _ = try execute(loop.otherwise)
            return
        }
        scopes.append(TemplateScope())
        defer { scopes.removeLast() }
        var recurse: TemplateFunction?
        if loop.recursive {
            recurse = TemplateFunction("loop") { [unowned self] arguments in
                let inner = arguments.value(0, "iterable") ?? .list([])
                try self.enterCall()
                defer { self.callDepth -= 1 }
                return .string(try self.capture { try self.runLoop(loop, items: inner, depth: depth + 1) })
            }
        }
        let state = TemplateLoop(items: items, depth0: depth, recurse: recurse)
        for (index, item) in items.enumerated() {
            try countIteration()
            state.index0 = index
            // Each iteration starts with a fresh scope: a `set` in the body does not carry over.
            scopes[scopes.count - 1] = TemplateScope()
            try assign(loop.target, item)
            scopes[scopes.count - 1]["loop"] = .loop(state)
            if try execute(loop.body) == .breakLoop { break }
        }
    }

    private func enterCall() throws {
        callDepth += 1
        if callDepth > limits.maxCallDepth {
            callDepth -= 1
            throw TemplateFailure("macro calls nested deeper than \(limits.maxCallDepth) levels")
        }
        try countIteration()
    }

    /// A macro that sees the scopes where it is made, as they are when it is called.
    private func makeMacro(_ macro: TemplateMacroNode) -> TemplateFunction {
        let enclosing = scopes
        for scope in enclosing { closedOver[ObjectIdentifier(scope)] = scope }
        return TemplateFunction(macro.name) { [unowned self] arguments in
            try self.enterCall()
            defer { self.callDepth -= 1 }
            let (locals, unbound) = try macro.bind(arguments)
            let saved = self.scopes
            let savedLine = self.line
            self.scopes = enclosing + [locals]
            defer { self.scopes = saved; self.line = savedLine }
            for index in unbound {
                let parameter = macro.parameters[index]
                locals[parameter.name] = try parameter.defaultValue.map { try self.evaluate($0) }
                    ?? .undefined("parameter '\(parameter.name)' was not provided")
            }
            do {
                return .string(try self.capture { _ = try self.execute(macro.body) })
            } catch var failure as TemplateFailure {
                // Keep the line inside the macro, before the caller's line is restored.
                if failure.line == nil { failure.line = self.line }
                throw failure
            }
        }
    }

    // MARK: Expressions

    func lookup(_ name: String) -> TemplateValue {
        var i = scopes.count - 1
        while i >= 0 {
            if let value = scopes[i][name] { return value }
            i -= 1
        }
        return TemplateGlobals.value(name, renderer: self) ?? .undefined("'\(name)' is undefined")
    }

    func evaluate(_ expression: TemplateExpression) throws -> TemplateValue {
        switch expression {
        case .none: return .none
        case .bool(let b): return .bool(b)
        case .integer(let i): return .int(i)
        case .float(let d): return .double(d)
        case .string(let s): return .string(s)
        case .name(let name): return lookup(name)
        case .list(let items): return .list(try items.map { try evaluate($0) })
        case .tuple(let items): return .tuple(try items.map { try evaluate($0) })
        case .dict(let pairs): return try evaluateDict(pairs)
        case .attribute(let base, let name):
            return try TemplateMethods.attribute(of: try evaluate(base), name)
        case .item(let base, let key):
            return try TemplateMethods.item(of: try evaluate(base), try evaluate(key))
        case .slice(let base, let start, let stop, let step):
            return try TemplateMethods.slice(try evaluate(base), start: try start.map { try evaluate($0) },
                                             stop: try stop.map { try evaluate($0) }, step: try step.map { try evaluate($0) })
        case .call(let callee, let arguments): return try evaluateCall(callee, arguments)
        case .filter(let base, let name, let arguments):
            return try applyFilter(name, to: try evaluate(base), arguments)
        case .test(let base, let name, let arguments, let negated):
            let value = try evaluate(base)
            let result = try TemplatePredicates.apply(name, to: value, try evaluateArguments(arguments), renderer: self)
            return .bool(result != negated)
        case .negate(let operand): return try negate(try evaluate(operand))
        case .plus(let operand):
            let value = try evaluate(operand)
            guard value.exactNumber != nil else { throw TemplateFailure("bad operand type for unary +: '\(value.typeName)'") }
            return value
        case .not(let operand): return .bool(!(try evaluate(operand).isTruthy))
        case .and(let left, let right):
            let value = try evaluate(left)
            return value.isTruthy ? try evaluate(right) : value
        case .or(let left, let right):
            let value = try evaluate(left)
            return value.isTruthy ? value : try evaluate(right)
        case .binary(let op, let left, let right):
            let (a, b) = (try evaluate(left), try evaluate(right))
            try budget.checkBinary(op, a, b)
            return try TemplateOperators.binary(op, a, b)
        case .compare(let first, let operations): return try evaluateChain(first, operations)
        case .conditional(let then, let condition, let otherwise):
            if try evaluate(condition).isTruthy { return try evaluate(then) }
            if let otherwise { return try evaluate(otherwise) }
            return .undefined("the inline if-expression evaluated to false and no else section was defined")
        }
    }

    private func evaluateDict(_ pairs: [(key: TemplateExpression, value: TemplateExpression)]) throws -> TemplateValue {
        var dictionary = TemplateDictionary()
        for pair in pairs {
            let keyValue = try evaluate(pair.key)
            guard let key = TemplateKey(keyValue) else {
                throw TemplateFailure("unhashable or unsupported dict key type: '\(keyValue.typeName)'")
            }
            dictionary[key] = try evaluate(pair.value)
        }
        return .dict(dictionary)
    }

    /// A call; `x.name(...)` tries the built-in methods of `x` first.
    private func evaluateCall(_ callee: TemplateExpression, _ arguments: [TemplateArgument]) throws -> TemplateValue {
        if case .attribute(let base, let name) = callee {
            let receiver = try evaluate(base)
            let values = try evaluateArguments(arguments)
            try budget.checkMethod(receiver, name, values)
            if let result = try TemplateMethods.callMethod(receiver, name, values) {
                try budget.check(budget.footprint(result), "the method '\(name)'")
                return result
            }
            return try call(try TemplateMethods.attribute(of: receiver, name), arguments)
        }
        return try call(try evaluate(callee), arguments)
    }

    /// Unary minus, as Python applies it.
    private func negate(_ value: TemplateValue) throws -> TemplateValue {
        switch value {
        case .int(let i): return .int(0 &- i)
        case .double(let d): return .double(-d)
        case .bool(let b): return .int(b ? -1 : 0)
        case .undefined(let why): throw TemplateFailure(why)
        case let other: throw TemplateFailure("bad operand type for unary -: '\(other.typeName)'")
        }
    }

    /// A chained comparison `a < b < c`: each operand is evaluated once, and the chain stops at the first false.
    private func evaluateChain(_ first: TemplateExpression, _ operations: [(op: String, rhs: TemplateExpression)]) throws -> TemplateValue {
        var left = try evaluate(first)
        for operation in operations {
            let right = try evaluate(operation.rhs)
            guard try TemplateOperators.compare(operation.op, left, right) else { return .bool(false) }
            left = right
        }
        return .bool(true)
    }

    func evaluateArguments(_ arguments: [TemplateArgument]) throws -> TemplateArguments {
        var result = TemplateArguments()
        for argument in arguments {
            let value = try evaluate(argument.value)
            switch argument.kind {
            case .positional: result.positional.append(value)
            case .keyword(let name): result.keywords.append((name, value))
            case .unpacked:
                guard let items = try? value.iterated() else {
                    throw TemplateFailure("Value after * must be an iterable, not \(value.typeName)")
                }
                result.positional += items
            case .unpackedKeywords:
                guard case .dict(let dictionary) = value.plain else {
                    throw TemplateFailure("argument after ** must be a mapping, not \(value.typeName)")
                }
                for (key, item) in dictionary {
                    guard case .string(let name) = key else { throw TemplateFailure("keywords must be strings") }
                    if result.keywords.contains(where: { $0.name == name }) {
                        throw TemplateFailure("got multiple values for keyword argument '\(name)'")
                    }
                    result.keywords.append((name, item))
                }
            }
        }
        return result
    }

    func call(_ callee: TemplateValue, _ arguments: [TemplateArgument]) throws -> TemplateValue {
        switch callee {
        case .function(let function): return try function.body(try evaluateArguments(arguments))
        case .loop(let loop):
            guard let recurse = loop.recurse else { throw TemplateFailure("'LoopContext' object is not callable") }
            return try recurse.body(try evaluateArguments(arguments))
        case .undefined(let why): throw TemplateFailure(why)
        default: throw TemplateFailure("'\(callee.typeName)' object is not callable")
        }
    }

    func applyFilter(_ name: String, to value: TemplateValue, _ arguments: [TemplateArgument]) throws -> TemplateValue {
        let values = try evaluateArguments(arguments)
        try budget.checkFilter(name, value, values)
        let result = try TemplateFilters.apply(name, to: value, values, renderer: self)
        try budget.check(budget.footprint(result), "the filter '\(name)'")
        return result
    }
}
