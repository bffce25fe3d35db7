import Foundation
import Loopl
import LooplTestKit
import Testing

/// Inputs an agent run must survive: a tool that returns megabytes, tool output decoded from bytes
/// that are not UTF-8, a prompt far over the context. Each ends in a clear outcome, and the
/// conversation keeps what was said.
@Suite struct AgentBadInputTests {
    static func tool(_ name: String, _ output: @escaping @Sendable () -> String) -> FunctionTool {
        FunctionTool(name: name, description: "Returns a fixed text.") { _ in output() }
    }

    /// A model that calls `name` once, then answers "done".
    static func callsOnce(_ name: String, contextSize: Int = 2048) -> ScriptedModel {
        ScriptedModel(contextSize: contextSize) { request in
            request.messages.contains { if case .tool = $0 { true } else { false } }
                ? .text(["done"]) : .toolCalls([ToolCall(id: "c1", name: name, arguments: [:])])
        }
    }

    static func run(_ agent: Agent, _ text: String) async throws -> [AgentEvent] {
        var events: [AgentEvent] = []
        for try await event in agent.stream(text) { events.append(event) }
        return events
    }

    static func toolMessage(_ messages: [Message]) -> String? {
        for case .tool(let result, _, _) in messages { return result }
        return nil
    }

    @Test func tenMegabytesOfToolOutputAreCutToFitTheContext() async throws {
        let big = String(repeating: "é", count: 5 << 20)
        let model = Self.callsOnce("dump", contextSize: 2048)
        let agent = Agent(model: model, tools: [Self.tool("dump") { big }])
        let events = try await Self.run(agent, "dump it")
        #expect(events.last == .finished(iterations: 2, reason: .answered))
        #expect(events.contains { if case .warning(let text) = $0 { text.contains("dump returned 10485760 bytes") } else { false } })
        let messages = await agent.messages
        #expect(messages.count == 4, "user, call, result, answer")
        #expect(messages.first == .user("dump it"))
        let result = try #require(Self.toolMessage(messages))
        #expect(result.hasSuffix("\n[cut at 2048 of 10485760 bytes]"))
        #expect(result.utf8.count < 2048 + 40)
        let seen = try #require(model.requests.last.flatMap { Self.toolMessage($0.messages) })
        #expect(seen == result, "the model reads the cut result")
    }

    @Test func anExplicitLimitWinsAndShortResultsAreUntouched() async throws {
        let agent = Agent(model: Self.callsOnce("dump"), tools: [Self.tool("dump") { String(repeating: "x", count: 300) }],
                          options: AgentOptions(maxToolResultBytes: 100))
        _ = try await Self.run(agent, "go")
        #expect(Self.toolMessage(await agent.messages) == String(repeating: "x", count: 100) + "\n[cut at 100 of 300 bytes]")

        let small = Agent(model: Self.callsOnce("dump"), tools: [Self.tool("dump") { "short" }])
        _ = try await Self.run(small, "go")
        #expect(Self.toolMessage(await small.messages) == "short")
    }

    @Test func cutsFallOnCharacterBoundaries() {
        #expect(ToolResult.cut("ééé", toBytes: 3) == "é\n[cut at 2 of 6 bytes]")
        #expect(ToolResult.cut("😀😀", toBytes: 7) == "😀\n[cut at 4 of 8 bytes]")
        #expect(ToolResult.cut("😀", toBytes: 2) == "\n[cut at 0 of 4 bytes]")
        #expect(ToolResult.cut("abc", toBytes: 3) == "abc")
    }

    /// Bytes that are not UTF-8 reach a tool's String only through decoding, which replaces them;
    /// the model then reads the replacement characters, and NUL and control characters as they are.
    @Test func outputDecodedFromInvalidUTF8ReachesTheModel() async throws {
        let bytes: [UInt8] = [0x6F, 0x6B, 0xFF, 0xFE, 0xC3, 0x28, 0x00, 0x1B, 0xED, 0xA0, 0x80, 0x21]
        let text = String(decoding: bytes, as: UTF8.self)
        let model = Self.callsOnce("raw")
        let agent = Agent(model: model, tools: [Self.tool("raw") { text }])
        let events = try await Self.run(agent, "go")
        #expect(events.last == .finished(iterations: 2, reason: .answered))
        let result = try #require(Self.toolMessage(await agent.messages))
        #expect(result == text)
        #expect(result.hasPrefix("ok\u{FFFD}"))
        #expect(result.unicodeScalars.contains("\u{0}"))
        #expect(model.requests.last.flatMap { Self.toolMessage($0.messages) } == text)
    }

    @Test func readFileReplacesBytesThatAreNotUTF8() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-bad-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data([0x61, 0xFF, 0x62, 0xC0, 0xAF, 0x63]).write(to: folder.appendingPathComponent("bin.txt"))
        let read = ReadFileTool(root: try FileRoot(folder.path))
        #expect(try await read.call(["path": "bin.txt"]) == "a\u{FFFD}b\u{FFFD}\u{FFFD}c")
    }

    @Test func aPromptFarOverTheContextIsAContextOverflowAndTheConversationStays() async throws {
        let model = ScriptedModel(contextSize: 256) { _ in .text(["fine"]) }
        let agent = Agent(model: model, messages: [.system("Be brief."), .user("Hi"), .assistant("Hello.")])
        let huge = String(repeating: "far too long ", count: 10_000)
        do {
            _ = try await Self.run(agent, huge)
            Issue.record("a prompt 100 times the context was answered")
        } catch let error as LooplError {
            #expect(error.code == .contextOverflow, "\(error)")
        }
        let messages = await agent.messages
        #expect(messages == [.system("Be brief."), .user("Hi"), .assistant("Hello."), .user(huge)])
        let again = Agent(model: model, messages: Array(messages.dropLast()))
        let events = try await Self.run(again, "Short now.")
        #expect(events.last == .finished(iterations: 1, reason: .answered))
    }
}
