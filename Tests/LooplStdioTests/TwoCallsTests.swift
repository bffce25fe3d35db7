import Foundation
import Loopl
import LooplStdio
import LooplTestKit
import Testing

/// A text worker that writes two calls in one turn: both come back, in the order written.
@Suite struct TwoCallsTests {
    static func call(_ a: Int) -> String { "<tool_call>\n{\"name\":\"add\",\"arguments\":{\"a\":\(a)}}\n</tool_call>" }

    @Test(.timeLimit(.minutes(1)))
    func twoCallsInOneTurnComeBackInOrder() async throws {
        let script: JSONValue = ["name": "two calls", "version": "1.0", "contextMax": 2048, "nativeToolCalls": false,
                                 "toolCallFormat": "hermes",
                                 "turns": [["chunks": [.string(Self.call(1)), "\n", .string(Self.call(2))]]]]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-two-calls-\(UUID()).json").path
        try script.jsonText().write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let model = try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python(["--script", path])))
        let tool = ToolSpec(name: "add", description: "Add.", parameters: ["type": "object"])
        var options = GenerationOptions.greedy(maxTokens: 64)
        options.toolChoice = .required
        let turn = try await ModelConformance(model: model).run("two calls", [.user("Add.")], tools: [tool], options: options)
        await model.close()
        #expect(turn.toolCalls.map { $0.arguments["a"] } == [1, 2], "\(turn.toolCalls), text \(turn.text.debugDescription)")
        #expect(!turn.text.contains("<tool_call>"))
    }
}
