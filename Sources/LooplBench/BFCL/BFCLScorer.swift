import Loopl

/// A call as a server returned it: the function's name and its parsed arguments.
package struct BFCLCall: Sendable, Equatable {
    package var name: String
    package var arguments: JSONObject

    package init(name: String, arguments: JSONObject) {
        self.name = name
        self.arguments = arguments
    }
}

/// The leaderboard's AST rules: a reply is right when its calls name the expected functions,
/// give every required argument, no argument the function or the answer does not know, and each
/// value among the accepted ones (strings compared without case, spaces and `,./-_*^`; an
/// integer accepted for a float). Parallel answers match in any order: right when every expected
/// call can have a call of its own.
package enum BFCLScorer {
    /// Nil when `calls` answer `item` right, else why not.
    package static func verdict(_ calls: [BFCLCall], for item: BFCLCase) -> String? {
        if item.category == .irrelevance { return calls.isEmpty ? nil : "called \(calls[0].name) on a question no function answers" }
        guard calls.count == item.expected.count else { return "made \(calls.count) calls, expected \(item.expected.count)" }
        // Which calls each expected call accepts; the answer is right when each gets one of its own.
        let fits = item.expected.map { expected in calls.map { check($0, against: expected, in: item) } }
        var owner = [Int?](repeating: nil, count: calls.count)
        for index in item.expected.indices {
            var tried = Set<Int>()
            guard assign(index, fits, &owner, &tried) else {
                return fits[index].compactMap { $0 }.first ?? "no call matches \(item.expected[index].name)"
            }
        }
        return nil
    }

    /// Gives expected call `index` a call, moving earlier ones to other calls they fit if need be.
    private static func assign(_ index: Int, _ fits: [[String?]], _ owner: inout [Int?], _ tried: inout Set<Int>) -> Bool {
        for call in fits[index].indices where fits[index][call] == nil && tried.insert(call).inserted {
            if let previous = owner[call], !assign(previous, fits, &owner, &tried) { continue }
            owner[call] = index
            return true
        }
        return false
    }

    /// Nil when `call` is `expected`, else why not.
    static func check(_ call: BFCLCall, against expected: BFCLCase.Expected, in item: BFCLCase) -> String? {
        guard call.name == expected.name || call.name == servedName(expected.name) else {
            return "called \(call.name), expected \(expected.name)"
        }
        let function = item.function(named: expected.name)
        let properties = function?["parameters"]?["properties"]?.objectValue ?? [:]
        let required = function?["parameters"]?["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let missing = required.first(where: { call.arguments[$0] == nil }) { return "left out required \(missing)" }
        for (key, value) in call.arguments {
            guard let accepted = expected.arguments[key], properties[key] != nil else { return "gave unknown argument \(key)" }
            let type = properties[key]?["type"]?.stringValue ?? "any"
            guard accepted.contains(where: { matches(value, $0, type: type, items: properties[key]?["items"]) }) else {
                return "\(key) = \(value.jsonText()), expected one of \(JSONValue.array(accepted).jsonText())"
            }
        }
        if let missing = expected.arguments.first(where: { call.arguments[$0.key] == nil && !$0.value.contains("") }) {
            return "left out \(missing.key)"
        }
        return nil
    }

    /// A function's name as OpenAI-style servers accept it (letters, digits, `_` and `-`).
    package static func servedName(_ name: String) -> String {
        name.replacingOccurrences(of: ".", with: "_")
    }

    static func matches(_ value: JSONValue, _ accepted: JSONValue, type: String, items: JSONValue? = nil) -> Bool {
        switch (type, value, accepted) {
        case ("float", .integer, _), ("float", .double, _), ("number", .integer, _), ("number", .double, _):
            return value.doubleValue == accepted.doubleValue
        case ("integer", .integer(let a), .integer(let b)):
            return a == b
        case ("integer", _, _):
            return false
        case (_, .string(let a), .string(let b)):
            return standardized(a) == standardized(b)
        case (_, .array(let a), .array(let b)):
            let itemType = items?["type"]?.stringValue ?? "any"
            return a.count == b.count && zip(a, b).allSatisfy { matches($0, $1, type: itemType, items: items?["items"]) }
        case (_, .object(let a), .object(let b)):
            return matchesObject(a, b)
        default:
            return value == accepted || (value.doubleValue != nil && value.doubleValue == accepted.doubleValue)
        }
    }

    /// A dictionary argument: each key's value among the accepted ones, a key left out only when
    /// `""` is accepted for it.
    private static func matchesObject(_ value: JSONObject, _ accepted: JSONObject) -> Bool {
        for (key, options) in accepted {
            let choices = options.arrayValue ?? [options]
            guard let given = value[key] else {
                if choices.contains("") { continue } else { return false }
            }
            if !choices.contains(where: { matches(given, $0, type: "any") }) { return false }
        }
        return value.allSatisfy { accepted[$0.key] != nil }
    }

    /// Lower case, without spaces and the punctuation `,./-_*^`, single quotes as double ones.
    static func standardized(_ text: String) -> String {
        let dropped: Set<Character> = [" ", ",", ".", "/", "-", "_", "*", "^"]
        return String(text.lowercased().filter { !dropped.contains($0) }.map { $0 == "'" ? "\"" : $0 })
    }
}
