import Foundation
import Loopl
@testable import LooplServer
import Testing

/// The reasoning goldens (Tests/Data/Templates/reasoning.json) are rendered by a Python copy of
/// ChatPrompt's rules. For templates that write neither the model's BOS nor today's date, llama.cpp's
/// own rendering must give the same prompts: llama-server's `/apply-template`, thinking switched
/// with `chat_template_kwargs`, for every context, on and off.
@Suite(.serialized) struct ReasoningGoldenCrossCheckTests {
    static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/Templates")
    static let templates = ["Qwen-Qwen3-0.6B", "Qwen-QwQ-32B", "Qwen3.5-4B", "GLM-4.6"]

    @Test(.timeLimit(.minutes(5)), arguments: templates)
    func llamaCppRendersTheGoldensPrompts(_ name: String) async throws {
        let reasoning = try JSONValue(parsing: Data(contentsOf: Self.data.appendingPathComponent("reasoning.json")))
        let contexts = try #require(reasoning["contexts"]?.objectValue)
        let goldens = try #require(reasoning["goldens"]?[name]?.objectValue, "no goldens for \(name)")
        let server = try await PlainServer.start(["-c", "512", "-np", "1", "-t", "1", "--chat-template-file",
                                                  Self.data.appendingPathComponent("templates/\(name).jinja").path])
        defer { server.process.signal(SIGKILL) }
        var compared = 0
        for (context, value) in contexts.sorted(by: { $0.key < $1.key }) {
            for (mode, reasoning) in [("on", true), ("off", false)] {
                let golden = try #require(goldens[context]?[mode]?["output"]?.stringValue, "\(name) \(context) \(mode)")
                var body: JSONObject = ["messages": value["messages"] ?? [], "chat_template_kwargs": ["enable_thinking": .bool(reasoning)]]
                if let tools = value["tools"], tools != .null { body["tools"] = tools }
                let answer = try await server.endpoint.fetch("/apply-template", method: "POST", body: .object(body))
                let prompt = try #require(answer.json["prompt"]?.stringValue, "\(answer.status) \(answer.json)")
                #expect(prompt == golden, "\(name) \(context) thinking \(mode): llama.cpp renders\n\(prompt.debugDescription)\nthe golden has\n\(golden.debugDescription)")
                compared += 1
            }
        }
        #expect(compared == 6, "\(name): \(compared) prompts compared")
    }
}
