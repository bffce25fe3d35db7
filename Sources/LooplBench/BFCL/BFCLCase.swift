import Foundation
import Loopl

/// One question of the function-calling sample in `bench/bfcl/` (the Berkeley Function Calling
/// Leaderboard's format): the conversation, the functions offered and the calls it accepts.
package struct BFCLCase: Sendable {
    /// The sample's categories, each a file `data/NAME.jsonl`.
    package enum Category: String, Sendable, CaseIterable {
        case simple, multiple, parallel
        case parallelMultiple = "parallel_multiple"
        case irrelevance
    }

    /// One accepted call: the function's name and, per argument, the values it may take
    /// (`""` among them: the argument may be left out).
    package struct Expected: Sendable {
        package var name: String
        package var arguments: [String: [JSONValue]]
    }

    package var id: String
    package var category: Category
    /// The conversation's messages, as chat messages (`role`, `content`).
    package var messages: [JSONValue]
    /// The functions offered, in the sample's own schema dialect (`dict`, `float`, `tuple`).
    package var functions: [JSONObject]
    /// The calls a right answer makes, in any order; empty for `irrelevance`.
    package var expected: [Expected]

    /// The function document named `name`.
    package func function(named name: String) -> JSONObject? {
        functions.first { $0["name"]?.stringValue == name }
    }
}

/// Why the sample could not be read.
package struct BFCLDataError: Error, CustomStringConvertible {
    package var description: String
}

extension BFCLCase {
    /// Every case of `categories` under `folder` (`data/` of `bench/bfcl`), in the files' order.
    package static func load(from folder: String, categories: [Category] = Category.allCases) throws -> [BFCLCase] {
        try categories.flatMap { category in
            let questions = try lines(folder + "/\(category.rawValue).jsonl")
            let answers = category == .irrelevance ? [:] : try groundTruth(folder + "/possible_answer/\(category.rawValue).jsonl")
            return try questions.map { try BFCLCase(category: category, line: $0, answers: answers) }
        }
    }

    private init(category: Category, line: JSONValue, answers: [String: [Expected]]) throws {
        guard let id = line["id"]?.stringValue,
              let turns = line["question"]?.arrayValue, let first = turns.first?.arrayValue,
              let functions = line["function"]?.arrayValue?.compactMap(\.objectValue) else {
            throw BFCLDataError(description: "A \(category.rawValue) case lacks its id, question or functions.")
        }
        guard category == .irrelevance || answers[id] != nil else {
            throw BFCLDataError(description: "Case \(id) has no possible answer.")
        }
        self.init(id: id, category: category, messages: first, functions: functions, expected: answers[id] ?? [])
    }

    private static func groundTruth(_ path: String) throws -> [String: [Expected]] {
        var answers: [String: [Expected]] = [:]
        for line in try lines(path) {
            guard let id = line["id"]?.stringValue, let calls = line["ground_truth"]?.arrayValue else {
                throw BFCLDataError(description: "An answer in \(path) lacks its id or ground_truth.")
            }
            answers[id] = try calls.map { call in
                guard let object = call.objectValue, object.count == 1, let name = object.keys.first,
                      let arguments = object[name]?.objectValue else {
                    throw BFCLDataError(description: "Answer \(id) in \(path) is not one call per entry.")
                }
                return Expected(name: name, arguments: Dictionary(uniqueKeysWithValues: arguments.map { ($0.key, $0.value.arrayValue ?? [$0.value]) }))
            }
        }
        return answers
    }

    private static func lines(_ path: String) throws -> [JSONValue] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BFCLDataError(description: "Cannot read \(path): give the sample's data folder (bench/bfcl/data).")
        }
        return try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }
}
