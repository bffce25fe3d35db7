import Foundation
import Loopl
import LooplHTTP

/// The `/completion` prompt of a conversation that Loopl rendered, with the message content that
/// holds control-token text (``PromptSpans``) sent as the token ids llama-server's `/tokenize`
/// gives with `parse_special` false. The template's own text stays text, which llama-server
/// tokenizes with its special tokens parsed: the in-process backend's tokens, id for id.
enum PlainContentPrompt {
    /// The prompt for `text`, rendered from `messages`: the text itself when no content holds
    /// control-token text, else an array of the template's text and the content's token ids.
    static func prompt(_ text: String, messages: [Message], endpoint: ServerEndpoint) async throws -> JSONValue {
        let spans = PromptSpans(text: text, messages: messages)
        let items = Array(Set(spans.content.filter { !$0.isEmpty }))
        guard !items.isEmpty else { return .string(text) }
        let special = try await tokenize(items, parseSpecial: true, endpoint)
        let plain = try await tokenize(items, parseSpecial: false, endpoint)
        let holding = Set(items.indices.filter { special[$0] != plain[$0] }.map { items[$0] })
        let pieces = spans.pieces(holdsControlText: holding.contains)
        guard pieces.contains(where: \.isContent) else { return .string(text) }
        var ids = try await tokenize(pieces.filter(\.isContent).map { String($0.text) }, parseSpecial: false, endpoint)[...]
        // llama-server adds BOS before a first element that is text: an empty one when content comes first.
        var prompt: [JSONValue] = pieces[0].isContent ? [""] : []
        for piece in pieces {
            guard piece.isContent else { prompt.append(.string(String(piece.text))); continue }
            prompt += (ids.popFirst() ?? []).map(JSONValue.integer)
        }
        return .array(prompt)
    }

    /// The tokens of each of `texts`, without BOS, in one `/tokenize` request: llama-server
    /// tokenizes the strings of a mixed array apart and passes its numbers on, so -1 (no token)
    /// between them marks where each ends.
    static func tokenize(_ texts: [String], parseSpecial: Bool, _ endpoint: ServerEndpoint) async throws -> [[Int]] {
        let content = texts.enumerated().flatMap { index, text in (index == 0 ? [] : [.integer(-1)]) + [JSONValue.string(text)] }
        let body: JSONValue = ["content": .array(content), "parse_special": .bool(parseSpecial)]
        let answer = try await endpoint.fetch("/tokenize", method: "POST", body: body, timeout: 60)
        let ids = answer.json["tokens"]?.arrayValue?.compactMap(\.intValue)
        let split = ids?.split(separator: -1, omittingEmptySubsequences: false).map(Array.init)
        guard answer.status == 200, let split, split.count == texts.count else {
            throw LooplError(.protocolViolation, "The server at \(endpoint.baseURL.redacted) did not tokenize the prompt's content (/tokenize answered \(answer.status): \(answer.text.prefix(200))); Loopl needs it to keep control-token text in content plain. Use the pinned llama-server, or set allowSpecialTokensInContent.")
        }
        return split
    }
}
