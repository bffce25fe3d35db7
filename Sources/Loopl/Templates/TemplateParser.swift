/// Turns tokens into statements and expressions, with Jinja's grammar and operator precedence.
struct TemplateParser {
    private let tokens: [TemplateToken]
    private let lexer: TemplateLexer
    private var index = 0
    private var depth = 0
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

    private var current: TemplateToken { tokens[index] }

    private func error(_ message: String, at offset: Int? = nil) -> LooplError {
        lexer.syntaxError(message, at: offset ?? current.offset)
    }

    private func line(_ offset: Int) -> Int { lexer.location(offset).line }

    private func describe(_ kind: TemplateToken.Kind) -> String {
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

    private mutating func advance() -> TemplateToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private func isOp(_ op: String) -> Bool { current.kind == .op(op) }
    private func isName(_ name: String) -> Bool { current.kind == .name(name) }

    private mutating func skip(op: String) -> Bool {
        guard isOp(op) else { return false }
        index += 1
        return true
    }

    private mutating func skip(name: String) -> Bool {
        guard isName(name) else { return false }
        index += 1
        return true
    }

    private mutating func expect(op: String) throws {
        guard skip(op: op) else { throw error("expected '\(op)', found \(describe(current.kind))") }
    }

    private mutating func expect(_ kind: TemplateToken.Kind) throws {
        guard current.kind == kind else { throw error("expected \(describe(kind)), found \(describe(current.kind))") }
        index += 1
    }

    private mutating func expectName() throws -> String {
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

    private mutating func parseTarget() throws -> TemplateTarget {
        let parenthesized = skip(op: "(")
        var names = [try expectName()]
        if !parenthesized, skip(op: ".") { return .attribute(names[0], try expectName()) }
        var isTuple = parenthesized
        while skip(op: ",") {
            isTuple = true
            if case .name = current.kind { names.append(try expectName()) } else { break }
        }
        if parenthesized { try expect(op: ")") }
        return isTuple ? .names(names) : .name(names[0])
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

    private mutating func parseParameters() throws -> [(name: String, defaultValue: TemplateExpression?)] {
        try expect(op: "(")
        var parameters: [(name: String, defaultValue: TemplateExpression?)] = []
        while !skip(op: ")") {
            if !parameters.isEmpty { try expect(op: ",") }
            if skip(op: ")") { break }
            let parameter = try expectName()
            parameters.append((parameter, skip(op: "=") ? try parseExpression() : nil))
        }
        return parameters
    }

    // MARK: Expressions

    /// An expression, or several separated by commas (a tuple, which behaves as a list).
    private mutating func parseTuple(conditional: Bool = true) throws -> TemplateExpression {
        let first = conditional ? try parseExpression() : try parseOr()
        guard isOp(",") else { return first }
        var items = [first]
        while skip(op: ",") {
            if current.kind == .blockEnd || current.kind == .variableEnd || isName("if") { break }
            items.append(conditional ? try parseExpression() : try parseOr())
        }
        return .tuple(items)
    }

    mutating func parseExpression() throws -> TemplateExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maxDepth else { throw error("expression nested too deeply") }
        let value = try parseOr()
        guard skip(name: "if") else { return value }
        let condition = try parseOr()
        let otherwise = skip(name: "else") ? try parseExpression() : nil
        return .conditional(then: value, condition: condition, otherwise: otherwise)
    }

    private mutating func parseOr() throws -> TemplateExpression {
        var left = try parseAnd()
        while skip(name: "or") { left = .or(left, try parseAnd()) }
        return left
    }

    private mutating func parseAnd() throws -> TemplateExpression {
        var left = try parseNot()
        while skip(name: "and") { left = .and(left, try parseNot()) }
        return left
    }

    private mutating func parseNot() throws -> TemplateExpression {
        if skip(name: "not") {
            depth += 1
            defer { depth -= 1 }
            guard depth < Self.maxDepth else { throw error("expression nested too deeply") }
            return .not(try parseNot())
        }
        return try parseCompare()
    }

    private mutating func parseCompare() throws -> TemplateExpression {
        let first = try parseMath1()
        var operations: [(op: String, rhs: TemplateExpression)] = []
        while true {
            if case .op(let op) = current.kind, ["==", "!=", "<", "<=", ">", ">="].contains(op) {
                index += 1
                operations.append((op, try parseMath1()))
            } else if skip(name: "in") {
                operations.append(("in", try parseMath1()))
            } else if isName("not"), index + 1 < tokens.count, tokens[index + 1].kind == .name("in") {
                index += 2
                operations.append(("notin", try parseMath1()))
            } else {
                break
            }
        }
        return operations.isEmpty ? first : .compare(first, operations)
    }

    private mutating func parseMath1() throws -> TemplateExpression {
        var left = try parseConcat()
        while case .op(let op) = current.kind, op == "+" || op == "-" {
            index += 1
            left = .binary(op, left, try parseConcat())
        }
        return left
    }

    private mutating func parseConcat() throws -> TemplateExpression {
        var left = try parseMath2()
        while skip(op: "~") { left = .binary("~", left, try parseMath2()) }
        return left
    }

    private mutating func parseMath2() throws -> TemplateExpression {
        var left = try parsePower()
        while case .op(let op) = current.kind, ["*", "/", "//", "%"].contains(op) {
            index += 1
            left = .binary(op, left, try parsePower())
        }
        return left
    }

    private mutating func parsePower() throws -> TemplateExpression {
        var left = try parseUnary(filters: true)
        while skip(op: "**") { left = .binary("**", left, try parseUnary(filters: true)) }
        return left
    }

    private mutating func parseUnary(filters: Bool) throws -> TemplateExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maxDepth else { throw error("expression nested too deeply") }
        var node: TemplateExpression
        if skip(op: "-") {
            node = .negate(try parseUnary(filters: false))
        } else if skip(op: "+") {
            node = .plus(try parseUnary(filters: false))
        } else {
            node = try parsePostfix(try parsePrimary())
        }
        return filters ? try parseFilters(node) : node
    }

    private mutating func parsePrimary() throws -> TemplateExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth < Self.maxDepth else { throw error("expression nested too deeply") }
        let token = advance()
        switch token.kind {
        case .name(let name):
            switch name {
            case "true", "True": return .bool(true)
            case "false", "False": return .bool(false)
            case "none", "None": return .none
            default: return .name(name)
            }
        case .string(var text):
            while case .string(let more) = current.kind { text += more; index += 1 }
            return .string(text)
        case .integer(let i): return .integer(i)
        case .float(let d): return .float(d)
        case .op("("):
            if skip(op: ")") { return .tuple([]) }
            let value = try parseTuple()
            try expect(op: ")")
            return value
        case .op("["):
            var items: [TemplateExpression] = []
            while !skip(op: "]") {
                if !items.isEmpty { try expect(op: ",") }
                if skip(op: "]") { break }
                items.append(try parseExpression())
            }
            return .list(items)
        case .op("{"):
            var pairs: [(key: TemplateExpression, value: TemplateExpression)] = []
            while !skip(op: "}") {
                if !pairs.isEmpty { try expect(op: ",") }
                if skip(op: "}") { break }
                let key = try parseExpression()
                try expect(op: ":")
                pairs.append((key, try parseExpression()))
            }
            return .dict(pairs)
        default:
            throw error("unexpected \(describe(token.kind))", at: token.offset)
        }
    }

    private mutating func parsePostfix(_ base: TemplateExpression) throws -> TemplateExpression {
        var node = base
        while true {
            if skip(op: ".") {
                switch advance().kind {
                case .name(let name): node = .attribute(node, name)
                case .integer(let i): node = .item(node, .integer(i))
                default: throw error("expected an attribute name after '.'", at: tokens[index - 1].offset)
                }
            } else if skip(op: "[") {
                node = try parseSubscript(node)
            } else if isOp("(") {
                node = .call(node, try parseArguments())
            } else {
                return node
            }
        }
    }

    private mutating func parseSubscript(_ base: TemplateExpression) throws -> TemplateExpression {
        var parts: [TemplateExpression?] = [nil]
        var isSlice = false
        while !skip(op: "]") {
            if skip(op: ":") {
                isSlice = true
                parts.append(nil)
                guard parts.count <= 3 else { throw error("too many ':' in a slice") }
            } else {
                guard parts[parts.count - 1] == nil else { throw error("expected ']' or ':', found \(describe(current.kind))") }
                parts[parts.count - 1] = try parseExpression()
            }
        }
        if !isSlice {
            guard let key = parts[0] else { throw error("expected an index inside '[]'") }
            return .item(base, key)
        }
        return .slice(base, start: parts[0], stop: parts.count > 1 ? parts[1] : nil, step: parts.count > 2 ? parts[2] : nil)
    }

    private mutating func parseArguments() throws -> [TemplateArgument] {
        try expect(op: "(")
        var arguments: [TemplateArgument] = []
        while !skip(op: ")") {
            if !arguments.isEmpty { try expect(op: ",") }
            if skip(op: ")") { break }
            if case .name(let name) = current.kind, index + 1 < tokens.count, tokens[index + 1].kind == .op("=") {
                index += 2
                arguments.append(TemplateArgument(name: name, value: try parseExpression()))
            } else {
                arguments.append(TemplateArgument(name: nil, value: try parseExpression()))
            }
        }
        return arguments
    }

    private mutating func parseFilters(_ base: TemplateExpression) throws -> TemplateExpression {
        var node = base
        while true {
            if skip(op: "|") {
                let name = try expectName()
                node = .filter(node, name, isOp("(") ? try parseArguments() : [])
            } else if skip(name: "is") {
                let negated = skip(name: "not")
                let name = try expectName()
                var arguments: [TemplateArgument] = []
                if isOp("(") {
                    arguments = try parseArguments()
                } else if startsTestArgument() {
                    arguments = [TemplateArgument(name: nil, value: try parsePostfix(try parsePrimary()))]
                }
                node = .test(node, name, arguments, negated: negated)
            } else {
                return node
            }
        }
    }

    /// Jinja lets a test take one argument without parentheses: `x is divisibleby 3`.
    private func startsTestArgument() -> Bool {
        switch current.kind {
        case .name(let name): return !["else", "or", "and", "if", "is", "in", "not"].contains(name)
        case .string, .integer, .float: return true
        case .op(let op): return op == "[" || op == "{"
        default: return false
        }
    }
}
