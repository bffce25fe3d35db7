import Foundation
import Loopl
import LooplStdio
import LooplTestKit
import Testing

/// A text-style worker whose chunks cut the thinking tags anywhere: the Agent streams the thinking
/// as `reasoning` events, never as text, and keeps it in the conversation, directly and through
/// the default route (FallbackModel, which lifts the text itself).
@Suite struct ReasoningStreamTests {
    static let call = #"<tool_call>\n{"name": "calculator", "arguments": {"expression": "17*23"}}\n</tool_call>"#
    /// Two turns, as a thinking model writes them: think, call; think, answer.
    static let script: JSONValue = [
        "name": "thinking text worker", "version": "1.0", "contextMax": 2048,
        "nativeToolCalls": false, "toolCallFormat": "hermes",
        "turns": [
            ["chunks": ["<th", "ink>\nUse the", " calculator: 17*", "23.\n</t", "hink>", "\n\n<tool", "_call>\n{\"name\": \"calculator\", ",
                        "\"arguments\": {\"expression\": \"17*23\"}}\n</tool_call>"]],
            ["chunks": ["<think", ">The", " result is 391.", "</think", ">\n\n", "17*23", " is 391."]],
        ],
    ]

    static func scriptPath() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-thinking-\(UUID()).json").path
        try script.jsonText().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs the calculator question on `model` and checks what the Agent made of the thinking.
    static func check(_ model: any Model) async throws {
        let agent = Agent(model: model, tools: [CalculatorTool()])
        var reasoning: [String] = []
        var text = ""
        var iteration = 0
        for try await event in agent.stream("What is 17*23?") {
            switch event {
            case .iterationStarted(let n): iteration = n; reasoning.append("")
            case .reasoning(let delta): reasoning[iteration - 1] += delta
            case .text(let delta):
                text += delta
                #expect(!delta.contains("<") && !delta.contains("think"), "markup in text: \(delta.debugDescription)")
            default: break
            }
        }
        #expect(reasoning == ["\nUse the calculator: 17*23.\n", "The result is 391."])
        #expect(text == "17*23 is 391.")
        let messages = await agent.messages
        #expect(messages.count == 4)
        #expect(messages[1].reasoning == "Use the calculator: 17*23.")
        #expect(messages[1].toolCalls.map(\.name) == ["calculator"])
        #expect(messages[2].text == "391")
        #expect(messages[3] == .assistant(text: "17*23 is 391.", toolCalls: [], reasoning: "The result is 391."))
        #expect(messages[3].templateValue["reasoning_content"] == "The result is 391.")
    }

    @Test(.timeLimit(.minutes(1)))
    func agentStreamsReasoningFromATextWorker() async throws {
        let path = try Self.scriptPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let model = try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python(["--script", path])))
        #expect(model.markup == .hermes)
        try await Self.check(model)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func theDefaultRouteStreamsReasoningToo() async throws {
        let path = try Self.scriptPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let command = JSONValue.array(Fixtures.python(["--script", path]).map(JSONValue.string))
        let config = try LooplConfig(json: JSONValue.object(["default": "worker", "backends": ["worker": ["kind": "stdio", "command": command]]]).jsonText(),
                                     kinds: [StdioModel.kind()])
        let model = try await Router(config: config).model(named: nil)
        try await Self.check(model)
        await model.close()
    }
}
