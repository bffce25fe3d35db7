import Foundation
import Loopl
import LooplHTTP

/// The `/completion` prompt of a conversation that Loopl renders, with the control-token text of
/// its message content (``PromptSpans``) sent as the token ids llama-server's `/tokenize` gives
/// with `parse_special` false. The template's own text stays text, which llama-server tokenizes
/// with its special tokens parsed: the in-process backend's tokens, id for id.
enum PlainContentPrompt {
    /// The prompt of `messages` as `render` writes it, as an array of the template's text and the
    /// content's control-token ids; nil when no content holds control-token text (the text as it is).
    static func prompt(messages: [Message], tools: [ToolSpec], endpoint: ServerEndpoint,
                       render: ([Message], [ToolSpec]) throws -> String) async throws -> JSONValue? {
        let controls = try await controlTexts(in: PromptSpans.content(of: messages, tools: tools), endpoint)
        guard !controls.isEmpty else { return nil }
        let pieces = try PromptSpans(messages: messages, tools: tools, controlTexts: controls, render: render).pieces
        var ids = try await tokenize(pieces.filter(\.isContent).map { .string($0.text) }, parseSpecial: false, endpoint)[...]
        // llama-server adds BOS before a first element that is text: an empty one when content comes first.
        var prompt: [JSONValue] = pieces.first?.isContent == true ? [""] : []
        for piece in pieces {
            guard piece.isContent else { prompt.append(.string(piece.text)); continue }
            prompt += (ids.popFirst() ?? []).map(JSONValue.integer)
        }
        return .array(prompt)
    }

    /// The texts of the control tokens that `items` hold, as the server's tokenizer finds them.
    static func controlTexts(in items: [String], _ endpoint: ServerEndpoint) async throws -> Set<String> {
        guard !items.isEmpty else { return [] }
        let special = try await tokenize(items.map(JSONValue.string), parseSpecial: true, endpoint)
        let plain = try await tokenize(items.map(JSONValue.string), parseSpecial: false, endpoint)
        let ids = Set(zip(special, plain).flatMap(PromptSpans.controlTokens))
        guard !ids.isEmpty else { return [] }
        let pieces = try await self.pieces(Array(ids), endpoint)
        return Set(ids.compactMap { pieces[$0] }.filter { !$0.isEmpty })
    }

    /// The tokens of each of `items` (texts, or ids passed on), without BOS, in one `/tokenize`
    /// request: llama-server tokenizes the strings of a mixed array apart and passes its numbers
    /// on, so -1 (no token) between them marks where each ends.
    static func tokenize(_ items: [JSONValue], parseSpecial: Bool, _ endpoint: ServerEndpoint) async throws -> [[Int]] {
        let content = items.enumerated().flatMap { index, item in (index == 0 ? [] : [.integer(-1)]) + [item] }
        let answer = try await fetch(["content": .array(content), "parse_special": .bool(parseSpecial)], endpoint)
        let ids = answer["tokens"]?.arrayValue?.compactMap(\.intValue)
        guard let split = ids?.split(separator: -1, omittingEmptySubsequences: false).map(Array.init), split.count == items.count else {
            throw failure(endpoint, "answered tokens that do not split into the \(items.count) texts asked about")
        }
        return split
    }

    /// The text of each token in `ids`, special tokens written out.
    static func pieces(_ ids: [Int], _ endpoint: ServerEndpoint) async throws -> [Int: String] {
        let answer = try await fetch(["content": .array(ids.map(JSONValue.integer)), "with_pieces": true], endpoint)
        var pieces: [Int: String] = [:]
        for item in answer["tokens"]?.arrayValue ?? [] {
            if let id = item["id"]?.intValue, let piece = item["piece"]?.stringValue { pieces[id] = piece }
        }
        return pieces
    }

    private static func fetch(_ body: JSONValue, _ endpoint: ServerEndpoint) async throws -> JSONValue {
        let answer = try await endpoint.fetch("/tokenize", method: "POST", body: body, timeout: 60)
        guard answer.status == 200 else { throw failure(endpoint, "answered \(answer.status): \(answer.text.prefix(200))") }
        return answer.json
    }

    private static func failure(_ endpoint: ServerEndpoint, _ what: String) -> LooplError {
        LooplError(.protocolViolation, "The server at \(endpoint.baseURL.redacted) did not tokenize the prompt's content (/tokenize \(what)); Loopl needs it to keep control-token text in content plain. Use the pinned llama-server, or set allowSpecialTokensInContent.")
    }
}
