import Foundation
import Loopl
@testable import LooplServer
import LooplTestKit
import Testing

/// A real llama-server child that renders and parses itself (`rendering: .server`) under a chat
/// template of a real model: its `reasoning_content` deltas reach the host as reasoning, and its
/// native `tool_calls` deltas as a parsed call. The fake server's tests cover the same fields as
/// written by hand; this checks what llama.cpp writes.
@Suite(.serialized) struct ServerOwnTemplateTests {
    static let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/Templates/templates")

    /// Runs `body` on a child with the default model under the template file `name`, and closes it.
    static func withTemplate(_ name: String, _ body: (LlamaServerModel) async throws -> Void) async throws {
        let path = templates.appendingPathComponent(name).path
        try await ServerConcurrencyTests.withModel(.init(rendering: .server, contextLength: 1024, parallel: 1, threads: 2,
                                                         extraArguments: ["--chat-template-file", path]), body)
    }

    /// QwQ's generation prompt opens `<think>`: llama-server parses what follows as thinking, up
    /// to the `</think>` its budget of 8 tokens writes, and streams it as `reasoning_content`.
    @Test(.timeLimit(.minutes(5)))
    func aReasoningTemplatesReasoningContentArrivesAsReasoning() async throws {
        try await Self.withTemplate("Qwen-QwQ-32B.jinja") { model in
            try await ModelConformance(model: model).checkReasoningThePromptOpened()
        }
    }

    /// Functionary v3.2's answers open with their recipient (`>>>get_weather`), so llama-server's
    /// grammar for `tool_choice: "required"` holds the answer to a call from its first token, and
    /// the call streams as `tool_calls` deltas that the host assembles.
    @Test(.timeLimit(.minutes(5)))
    func aRequiredCallArrivesFromTheServersOwnToolCallDeltas() async throws {
        try await Self.withTemplate("meetkai-functionary-medium-v3.2.jinja") { model in
            try await ModelConformance(model: model).checkRequiredToolCall()
        }
    }
}
