/// Expressions, by operator precedence from the loosest (`if … else`) to the tightest (postfix).
extension TemplateParser {
    /// An expression, or several separated by commas (a tuple, which behaves as a list).
    mutating func parseTuple(conditional: Bool = true) throws -> TemplateExpression {
        let first = conditional ? try parseExpression() : try parseOr()
        guard isOp(",") else { return first }
        var items = [first]
        while skip(op: ",") {
            if current.kind == .blockEnd || current.kind == .variableEnd || isName("if") || isOp(")") { break }
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

    /// `(a, b, name=c, *more, **named)`, in Jinja's order: positional arguments come before keywords,
    /// `*` and `**`; one `*` and one `**` at most, `**` last.
    mutating func parseArguments() throws -> [TemplateArgument] {
        let open = current.offset
        try expect(op: "(")
        var arguments: [TemplateArgument] = []
        func ensure(_ allowed: Bool) throws {
            if !allowed { throw error("invalid syntax for function call expression", at: open) }
        }
        func has(_ kind: TemplateArgument.Kind) -> Bool { arguments.contains { $0.kind == kind } }
        while !skip(op: ")") {
            if !arguments.isEmpty {
                try expect(op: ",")
                if skip(op: ")") { break }
            }
            let kind: TemplateArgument.Kind
            if skip(op: "*") {
                try ensure(!has(.unpacked) && !has(.unpackedKeywords))
                kind = .unpacked
            } else if skip(op: "**") {
                try ensure(!has(.unpackedKeywords))
                kind = .unpackedKeywords
            } else if case .name(let name) = current.kind, index + 1 < tokens.count, tokens[index + 1].kind == .op("=") {
                try ensure(!has(.unpackedKeywords))
                index += 2
                kind = .keyword(name)
            } else {
                try ensure(!has(.unpacked) && !has(.unpackedKeywords) && !arguments.contains { $0.kind != .positional })
                kind = .positional
            }
            arguments.append(TemplateArgument(kind: kind, value: try parseExpression()))
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
                    arguments = [TemplateArgument(kind: .positional, value: try parsePostfix(try parsePrimary()))]
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
