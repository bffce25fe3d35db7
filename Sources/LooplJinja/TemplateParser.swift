/// Turns tokens into statements and expressions, with Jinja's grammar and operator precedence.
struct TemplateParser {
    let tokens: [TemplateToken]
    let lexer: TemplateLexer
    var index = 0
    var depth = 0
    static let maxDepth = 200

    init(source: String) throws {
        var lexer = TemplateLexer(source: source)
        tokens = try lexer.tokenize()
        self.lexer = lexer
    }

    mutating func parse() throws -> [TemplateNode] {
        let (nodes, end) = try parseBody(until: [])
        if let end { throw error("unexpected '\(end)'", at: tokens[index - 1].offset) }
        return nodes
    }

    // MARK: Tokens

    var current: TemplateToken { tokens[index] }

    func error(_ message: String, at offset: Int? = nil) -> JinjaError {
        lexer.syntaxError(message, at: offset ?? current.offset)
    }

    func line(_ offset: Int) -> Int { lexer.location(offset).line }

    func describe(_ kind: TemplateToken.Kind) -> String {
        switch kind {
        case .text: "text"
        case .blockBegin: "'{%'"
        case .blockEnd: "end of block '%}'"
        case .variableBegin: "'{{'"
        case .variableEnd: "end of expression '}}'"
        case .name(let n): "'\(n)'"
        case .string: "a string"
        case .integer(let i): "'\(i)'"
        case .float(let d): "'\(d)'"
        case .op(let o): "'\(o)'"
        case .end: "end of template"
        }
    }

    mutating func advance() -> TemplateToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    func isOp(_ op: String) -> Bool { current.kind == .op(op) }
    func isName(_ name: String) -> Bool { current.kind == .name(name) }

    mutating func skip(op: String) -> Bool {
        guard isOp(op) else { return false }
        index += 1
        return true
    }

    mutating func skip(name: String) -> Bool {
        guard isName(name) else { return false }
        index += 1
        return true
    }

    mutating func expect(op: String) throws {
        guard skip(op: op) else { throw error("expected '\(op)', found \(describe(current.kind))") }
    }

    mutating func expect(_ kind: TemplateToken.Kind) throws {
        guard current.kind == kind else { throw error("expected \(describe(kind)), found \(describe(current.kind))") }
        index += 1
    }

    mutating func expectName() throws -> String {
        guard case .name(let name) = current.kind else { throw error("expected a name, found \(describe(current.kind))") }
        index += 1
        return name
    }

    // MARK: Statements

    /// Statements up to a block tag named in `ends`; returns that name, positioned after it.
    private mutating func parseBody(until ends: Set<String>) throws -> ([TemplateNode], String?) {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maxDepth else { throw error("blocks nested too deeply") }
        var nodes: [TemplateNode] = []
        while true {
            let token = advance()
            switch token.kind {
            case .end:
                if !ends.isEmpty {
                    throw error("unexpected end of template, expected one of \(ends.sorted().joined(separator: ", "))",
                                at: token.offset)
                }
                return (nodes, nil)
            case .text(let text):
                nodes.append(.text(text))
            case .variableBegin:
                let expression = try parseTuple()
                try expect(.variableEnd)
                nodes.append(.output(expression, line: line(token.offset)))
            case .blockBegin:
                let nameToken = current
                let keyword = try expectName()
                if ends.contains(keyword) { return (nodes, keyword) }
                if let node = try parseStatement(keyword, line: line(nameToken.offset)) {
                    nodes.append(node)
                } else {
                    let hint = ends.isEmpty ? "" : "; expected one of \(ends.sorted().joined(separator: ", "))"
                    throw error("unknown or unexpected tag '\(keyword)'\(hint)", at: nameToken.offset)
                }
            default:
                throw error("unexpected \(describe(token.kind))", at: token.offset)
            }
        }
    }

    private mutating func parseStatement(_ keyword: String, line: Int) throws -> TemplateNode? {
        switch keyword {
        case "if": return try parseIf(line: line)
        case "for": return try parseFor(line: line)
        case "set": return try parseSet(line: line)
        case "macro": return try parseMacro(line: line)
        case "call":
            let parameters = isOp("(") ? try parseParameters() : []
            let call = try parseExpression()
            guard case .call = call else { throw error("expected a macro call after 'call'") }
            try expect(.blockEnd)
            let (body, _) = try parseBody(until: ["endcall"])
            try expect(.blockEnd)
            return .callBlock(TemplateMacroNode(name: "caller", parameters: parameters, body: body, line: line), call: call, line: line)
        case "filter":
            let filters = try parseFilterChain()
            try expect(.blockEnd)
            let (body, _) = try parseBody(until: ["endfilter"])
            try expect(.blockEnd)
            return .filterBlock(filters, body: body, line: line)
        case "with":
            var assignments: [(target: TemplateTarget, value: TemplateExpression)] = []
            while current.kind != .blockEnd {
                if !assignments.isEmpty { try expect(op: ",") }
                let target = try parseTarget()
                try expect(op: "=")
                assignments.append((target, try parseExpression()))
            }
            try expect(.blockEnd)
            let (body, _) = try parseBody(until: ["endwith"])
            try expect(.blockEnd)
            return .with(assignments, body: body, line: line)
        case "block":
            _ = try expectName()
            let scoped = skip(name: "scoped")
            _ = skip(name: "required")
            try expect(.blockEnd)
            let (body, _) = try parseBody(until: ["endblock"])
            if case .name = current.kind { _ = try expectName() }
            try expect(.blockEnd)
            return .block(body, scoped: scoped)
        case "break", "continue":
            try expect(.blockEnd)
            return keyword == "break" ? .breakLoop : .continueLoop
        case "generation":
            try expect(.blockEnd)
            let (body, _) = try parseBody(until: ["endgeneration"])
            try expect(.blockEnd)
            return .conditional([(condition: .bool(true), body: body)], otherwise: [], line: line)
        default: return nil
        }
    }

    private mutating func parseIf(line: Int) throws -> TemplateNode {
        var branches: [(condition: TemplateExpression, body: [TemplateNode])] = []
        var condition = try parseTuple()
        while true {
            try expect(.blockEnd)
            let (body, end) = try parseBody(until: ["elif", "else", "endif"])
            branches.append((condition, body))
            switch end {
            case "elif":
                condition = try parseTuple()
            case "else":
                try expect(.blockEnd)
                let (otherwise, _) = try parseBody(until: ["endif"])
                try expect(.blockEnd)
                return .conditional(branches, otherwise: otherwise, line: line)
            default:
                try expect(.blockEnd)
                return .conditional(branches, otherwise: [], line: line)
            }
        }
    }

    /// What `set`, `for` and `with` assign to: `name`, `ns.attribute`, or names and parenthesized
    /// groups separated by commas, nested as deep as the values are.
    private mutating func parseTarget() throws -> TemplateTarget {
        var items = [try parseTargetItem()]
        var isTuple = false
        while skip(op: ",") {
            isTuple = true
            guard isOp("(") || { if case .name = current.kind { true } else { false } }() else { break }
            items.append(try parseTargetItem())
        }
        return isTuple ? .tuple(items) : items[0]
    }

    private mutating func parseTargetItem() throws -> TemplateTarget {
        if skip(op: "(") {
            let inner = try parseTarget()
            try expect(op: ")")
            return inner
        }
        let name = try expectName()
        return skip(op: ".") ? .attribute(name, try expectName()) : .name(name)
    }

    private mutating func parseFor(line: Int) throws -> TemplateNode {
        let target = try parseTarget()
        guard skip(name: "in") else { throw error("expected 'in', found \(describe(current.kind))") }
        let iterable = try parseTuple(conditional: false)
        var filter: TemplateExpression?
        if skip(name: "if") { filter = try parseExpression() }
        let recursive = skip(name: "recursive")
        try expect(.blockEnd)
        let (body, end) = try parseBody(until: ["else", "endfor"])
        var otherwise: [TemplateNode] = []
        if end == "else" {
            try expect(.blockEnd)
            (otherwise, _) = try parseBody(until: ["endfor"])
        }
        try expect(.blockEnd)
        return .loop(TemplateLoopNode(target: target, iterable: iterable, filter: filter, body: body,
                                      otherwise: otherwise, recursive: recursive, line: line))
    }

    private mutating func parseSet(line: Int) throws -> TemplateNode {
        let target = try parseTarget()
        if skip(op: "=") {
            let value = try parseTuple()
            try expect(.blockEnd)
            return .set(target, value, line: line)
        }
        let filters = skip(op: "|") ? try parseFilterChain() : []
        try expect(.blockEnd)
        let (body, _) = try parseBody(until: ["endset"])
        try expect(.blockEnd)
        return .setBlock(target, filters: filters, body: body, line: line)
    }

    private mutating func parseFilterChain() throws -> [(name: String, arguments: [TemplateArgument])] {
        var filters: [(name: String, arguments: [TemplateArgument])] = []
        repeat {
            let name = try expectName()
            filters.append((name, isOp("(") ? try parseArguments() : []))
        } while skip(op: "|")
        return filters
    }

    private mutating func parseMacro(line: Int) throws -> TemplateNode {
        let name = try expectName()
        let parameters = try parseParameters()
        try expect(.blockEnd)
        let (body, _) = try parseBody(until: ["endmacro"])
        if case .name = current.kind { _ = try expectName() }
        try expect(.blockEnd)
        return .macro(TemplateMacroNode(name: name, parameters: parameters, body: body, line: line))
    }

    /// A macro's or a call block's `(name, name=default, ...)`: as in Jinja, no `*`, `**` or trailing comma,
    /// and no parameter without a default after one with a default.
    private mutating func parseParameters() throws -> [(name: String, defaultValue: TemplateExpression?)] {
        try expect(op: "(")
        var parameters: [(name: String, defaultValue: TemplateExpression?)] = []
        while !skip(op: ")") {
            if !parameters.isEmpty { try expect(op: ",") }
            let offset = current.offset
            let parameter = try expectName()
            let defaultValue = skip(op: "=") ? try parseExpression() : nil
            if defaultValue == nil, parameters.last?.defaultValue != nil {
                throw error("non-default argument follows default argument", at: offset)
            }
            parameters.append((parameter, defaultValue))
        }
        return parameters
    }
}
