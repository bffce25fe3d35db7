import Foundation
import Loopl
@testable import LooplBench
import Testing

/// The function-calling sample's scorer: the leaderboard's AST rules on calls a server returned.
@Suite struct BFCLScorerTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("bench/bfcl/data").path

    static let area = BFCLCase(
        id: "t", category: .simple, messages: [],
        functions: [[
            "name": "geometry.area", "parameters": [
                "type": "dict", "required": ["radius"],
                "properties": ["radius": ["type": "float"], "units": ["type": "string"], "sides": ["type": "integer"],
                               "center": ["type": "tuple", "items": ["type": "integer"]]],
            ],
        ]],
        expected: [.init(name: "geometry.area", arguments: ["radius": [10], "units": ["meters", ""], "sides": ["", 3], "center": ["", [1, 2]]])])

    static func call(_ arguments: JSONObject, name: String = "geometry_area") -> [BFCLCall] {
        [BFCLCall(name: name, arguments: arguments)]
    }

    /// The sample holds its five categories in full, each case with its functions.
    @Test func theSampleLoadsWhole() throws {
        let cases = try BFCLCase.load(from: Self.folder)
        let counts = Dictionary(grouping: cases, by: \.category).mapValues(\.count)
        #expect(counts == [.simple: 100, .multiple: 50, .parallel: 50, .parallelMultiple: 30, .irrelevance: 50])
        #expect(cases.allSatisfy { !$0.functions.isEmpty && !$0.messages.isEmpty })
        #expect(cases.allSatisfy { ($0.category == .irrelevance) == $0.expected.isEmpty })
    }

    /// Every accepted answer of the sample, written as a server would return it, is scored right.
    @Test func everyGroundTruthScoresRight() throws {
        for item in try BFCLCase.load(from: Self.folder) where item.category != .irrelevance {
            let calls = item.expected.reversed().map { expected in
                BFCLCall(name: BFCLScorer.servedName(expected.name),
                         arguments: JSONObject(expected.arguments.compactMap { key, values in Self.given(values).map { (key, $0) } }))
            }
            #expect(BFCLScorer.verdict(calls, for: item) == nil, "\(item.id)")
        }
    }

    /// The value a server would give for an argument accepted as `values`: the first that is
    /// not `""`, a dictionary with each of its keys given the same way.
    static func given(_ values: [JSONValue]) -> JSONValue? {
        guard let value = values.first(where: { $0 != "" }) else { return nil }
        guard let object = value.objectValue else { return value }
        return .object(JSONObject(object.compactMap { key, options in given(options.arrayValue ?? [options]).map { (key, $0) } }))
    }

    @Test func rightCallsPass() {
        let item = Self.area
        #expect(BFCLScorer.verdict(Self.call(["radius": 10]), for: item) == nil)
        #expect(BFCLScorer.verdict(Self.call(["radius": 10.0, "units": "Meters"]), for: item) == nil)
        #expect(BFCLScorer.verdict(Self.call(["radius": 10, "center": [1, 2]], name: "geometry.area"), for: item) == nil)
    }

    @Test func wrongCallsFail() {
        let item = Self.area
        #expect(BFCLScorer.verdict(Self.call(["radius": 10], name: "area"), for: item) != nil)
        #expect(BFCLScorer.verdict(Self.call(["units": "meters"]), for: item)?.contains("required radius") == true)
        #expect(BFCLScorer.verdict(Self.call(["radius": 10, "colour": "red"]), for: item)?.contains("unknown argument") == true)
        #expect(BFCLScorer.verdict(Self.call(["radius": 11]), for: item) != nil)
        #expect(BFCLScorer.verdict(Self.call(["radius": "10"]), for: item) != nil)
        #expect(BFCLScorer.verdict(Self.call(["radius": 10, "sides": 3.0]), for: item) != nil, "a float for an integer")
        #expect(BFCLScorer.verdict(Self.call(["radius": 10, "center": [2, 1]]), for: item) != nil)
        #expect(BFCLScorer.verdict(Self.call(["radius": 10]) + Self.call(["radius": 10]), for: item) != nil)
        #expect(BFCLScorer.verdict([], for: item) != nil)
    }

    /// An argument without `""` among its accepted values must be given.
    @Test func anArgumentTheAnswerNeedsCannotBeLeftOut() {
        var item = Self.area
        item.expected[0].arguments["units"] = ["meters"]
        #expect(BFCLScorer.verdict(Self.call(["radius": 10]), for: item)?.contains("left out units") == true)
    }

    /// Strings compare without case, spaces and `,./-_*^`.
    @Test func stringsAreStandardized() {
        #expect(BFCLScorer.standardized("New York, NY") == BFCLScorer.standardized("new york ny"))
        #expect(BFCLScorer.standardized("x**2") == "x2")
        #expect(BFCLScorer.standardized("Paris") != BFCLScorer.standardized("London"))
    }

    /// Parallel calls match in any order, each expected call once.
    @Test func parallelCallsMatchInAnyOrder() {
        var item = Self.area
        item.category = .parallel
        item.expected = [.init(name: "geometry.area", arguments: ["radius": [1]]), .init(name: "geometry.area", arguments: ["radius": [2]])]
        #expect(BFCLScorer.verdict(Self.call(["radius": 2]) + Self.call(["radius": 1]), for: item) == nil)
        #expect(BFCLScorer.verdict(Self.call(["radius": 1]) + Self.call(["radius": 1]), for: item) != nil)
        // The first expected call accepts either call; the second only the one the first fits best.
        item.expected[0].arguments["radius"] = [1, 2]
        #expect(BFCLScorer.verdict(Self.call(["radius": 2]) + Self.call(["radius": 1]), for: item) == nil)
    }

    /// A question no function answers is right only without a call.
    @Test func irrelevanceWantsNoCall() {
        var item = Self.area
        item.category = .irrelevance
        item.expected = []
        #expect(BFCLScorer.verdict([], for: item) == nil)
        #expect(BFCLScorer.verdict(Self.call(["radius": 1]), for: item) != nil)
    }

    /// The sample's schema dialect becomes JSON Schema; a parameter named `type` stays a parameter.
    @Test func functionsBecomeOpenAITools() {
        let function: JSONObject = ["name": "a.b", "parameters": [
            "type": "dict", "properties": ["type": ["type": "float"], "list": ["type": "tuple", "items": ["type": "any"]]],
        ]]
        let tool = BFCLRun.tool(function)
        #expect(tool["function"]?["name"] == "a_b")
        #expect(tool["function"]?["parameters"]?["type"] == "object")
        #expect(tool["function"]?["parameters"]?["properties"]?["type"]?["type"] == "number")
        #expect(tool["function"]?["parameters"]?["properties"]?["list"]?["type"] == "array")
        #expect(tool["function"]?["parameters"]?["properties"]?["list"]?["items"]?["type"] == "string")
    }

    /// Call markup in the text is counted; plain text is not.
    @Test func markupInContentIsCounted() {
        let leak = BFCLRun.Reply(id: "x", category: .simple, calls: [], content: "<tool_call>\n{\"name\": \"add\"", finishReason: "length",
                                 completionTokens: 30, failure: "made 0 calls")
        var plain = leak
        plain.content = "The area is 314."
        #expect(leak.leaksMarkup && !plain.leaksMarkup)
        let report = BFCLReport(replies: [leak, plain])
        #expect(report.rows.first?.leaks == 1 && report.rows.first?.cases == 2 && report.rows.first?.right == 0)
    }
}
