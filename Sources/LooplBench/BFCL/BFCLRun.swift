import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Loopl
import LooplHTTP

/// Asks a running OpenAI-compatible server (`loopl serve`, llama-server) every question of the
/// function-calling sample, one at a time, and scores the replies with ``BFCLScorer``.
package struct BFCLRun: Sendable {
    /// The server's base URL, such as `http://127.0.0.1:8080`.
    package var url: String
    package var model: String?
    /// `tool_choice` for the calling categories; `irrelevance` always runs with `auto`.
    package var toolChoice = "required"
    package var parallelToolCalls: Bool?
    package var maxTokens = 256
    package var apiKey: String?

    package init(url: String) { self.url = url }

    /// One case's reply and verdict.
    package struct Reply: Sendable {
        package var id: String
        package var category: BFCLCase.Category
        package var calls: [BFCLCall]
        package var content: String
        package var finishReason: String
        package var completionTokens: Int
        /// Nil when right, else why not.
        package var failure: String?

        /// True when call markup leaked into the text a client shows as the answer.
        package var leaksMarkup: Bool { BFCLRun.markup.contains { content.contains($0) } }
    }

    /// Call markup of the common families, which must never reach `content`.
    static let markup = ["<tool_call", "</tool_call", "<|python_tag|>", "[TOOL_CALLS]", "<function=", "{\"name\""]

    /// Runs every case, reporting progress through `log`.
    package func run(_ cases: [BFCLCase], log: (String) -> Void) async throws -> [Reply] {
        var replies: [Reply] = []
        for (index, item) in cases.enumerated() {
            replies.append(try await ask(item))
            if (index + 1) % 20 == 0 || index + 1 == cases.count { log("[bfcl] \(index + 1)/\(cases.count) cases") }
        }
        return replies
    }

    func ask(_ item: BFCLCase) async throws -> Reply {
        var request = URLRequest(url: try endpoint())
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(body(for: item).jsonText().utf8)
        request.timeoutInterval = 600
        let (status, bytes) = try await HTTPResponseStream.open(request).collect(limit: 4 << 20)
        let answer = try JSONValue(parsing: bytes)
        guard status == 200, let message = answer["choices"]?.arrayValue?.first?["message"] else {
            throw BFCLDataError(description: "Case \(item.id): the server answered \(status): \(answer.jsonText().prefix(300))")
        }
        return reply(to: item, message: message, answer: answer)
    }

    private func reply(to item: BFCLCase, message: JSONValue, answer: JSONValue) -> Reply {
        var failure: String?
        var calls: [BFCLCall] = []
        for call in message["tool_calls"]?.arrayValue ?? [] {
            let name = call["function"]?["name"]?.stringValue ?? ""
            let text = call["function"]?["arguments"]?.stringValue ?? ""
            guard let arguments = (try? JSONValue(parsing: text))?.objectValue else {
                failure = "the arguments of \(name) are not a JSON object: \(text.prefix(80))"
                continue
            }
            calls.append(BFCLCall(name: name, arguments: arguments))
        }
        if item.category == .irrelevance { failure = nil }
        return Reply(id: item.id, category: item.category, calls: calls,
                     content: message["content"]?.stringValue ?? "",
                     finishReason: answer["choices"]?.arrayValue?.first?["finish_reason"]?.stringValue ?? "",
                     completionTokens: answer["usage"]?["completion_tokens"]?.intValue ?? 0,
                     failure: failure ?? BFCLScorer.verdict(calls, for: item))
    }

    private func endpoint() throws -> URL {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        guard let endpoint = URL(string: base + (base.hasSuffix("/v1") ? "" : "/v1") + "/chat/completions") else {
            throw BFCLDataError(description: "'\(url)' is not a URL: give the server's base URL, such as http://127.0.0.1:8080.")
        }
        return endpoint
    }

    /// The chat request for `item`: its messages, its functions as tools, greedy.
    func body(for item: BFCLCase) -> JSONValue {
        var body: JSONObject = [
            "messages": .array(item.messages),
            "tools": .array(item.functions.map(Self.tool)),
            "tool_choice": .string(item.category == .irrelevance ? "auto" : toolChoice),
            "temperature": 0, "max_tokens": .integer(maxTokens),
        ]
        if let model { body["model"] = .string(model) }
        if let parallelToolCalls { body["parallel_tool_calls"] = .bool(parallelToolCalls) }
        return .object(body)
    }

    /// A function of the sample as an OpenAI tool: its name with `.` as `_`, its types in JSON Schema.
    static func tool(_ function: JSONObject) -> JSONValue {
        var function = function
        function["name"] = function["name"]?.stringValue.map { .string(BFCLScorer.servedName($0)) }
        if let parameters = function["parameters"] { function["parameters"] = schema(parameters) }
        return ["type": "function", "function": .object(function)]
    }

    /// The sample's schema dialect in JSON Schema: `dict` object, `float` number, `tuple` array, `any` string.
    static func schema(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map(schema))
        case .object(let object):
            var converted = JSONObject()
            for (key, item) in object {
                if key == "type", let name = item.stringValue {
                    converted[key] = .string(jsonType[name] ?? name)
                } else {
                    converted[key] = schema(item)
                }
            }
            return .object(converted)
        default: return value
        }
    }

    private static let jsonType = ["dict": "object", "float": "number", "tuple": "array", "any": "string"]
}
