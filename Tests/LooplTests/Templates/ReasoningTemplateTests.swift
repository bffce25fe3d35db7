import Foundation
import Loopl
import Testing

/// Thinking through ChatPrompt, against what jinja2 renders for the same conversations
/// (scripts/template-goldens writes reasoning.json): the variables of each ReasoningSetting, the
/// thinking of past turns where each family's template reads it, and the closing marker under
/// `.off` for a template that always opens thinking.
@Suite struct ReasoningTemplateTests {
    static let file: JSONValue = (try? TemplateGoldens.json("reasoning.json")) ?? .null
    static let names: [String] = file["goldens"]?.objectValue?.keys ?? []
    static let settings: [ReasoningSetting] = [.auto, .off, .on, .effort(.low), .effort(.medium), .effort(.high)]

    static func prompt(_ name: String) throws -> ChatPrompt {
        try ChatPrompt(templateSource: try TemplateGoldens.source(name), bosText: "<|bos|>", eosText: "<|eos|>", addsBOS: false)
    }

    static func conversation(_ key: String) throws -> (messages: [Message], tools: [ToolSpec]) {
        let context = try #require(file["contexts"]?[key])
        let messages = try (context["messages"]?.arrayValue ?? []).map(Message.init(templateValue:))
        let tools = try (context["tools"]?.arrayValue ?? []).map(ToolSpec.init(openAIValue:))
        return (messages, tools)
    }

    /// What ChatPrompt renders for one golden: the text, or nil when it fails.
    static func render(_ name: String, _ key: String, _ setting: ReasoningSetting) throws -> String? {
        let (messages, tools) = try conversation(key)
        return try? prompt(name).render(messages: messages, tools: tools, reasoning: setting, now: TemplateGoldens.now)
    }

    static func golden(_ name: String, _ key: String, _ setting: ReasoningSetting) -> String? {
        file["goldens"]?[name]?[key]?[setting.name]?["output"]?.stringValue
    }

    @Test func goldensExist() {
        #expect(Self.names.count >= 70)
        #expect(Self.file["contexts"]?.objectValue?.count == 3)
    }

    @Test(arguments: names)
    func rendersAsJinja2(_ name: String) throws {
        let goldens = try #require(Self.file["goldens"]?[name]?.objectValue)
        for (key, bySetting) in goldens {
            for setting in Self.settings {
                let expected = bySetting[setting.name]?["output"]?.stringValue
                let rendered = try Self.render(name, key, setting)
                #expect(rendered == expected, "\(name) / \(key) / \(setting.name)")
            }
        }
    }

    /// A thinking turn, a call and its result: Qwen3 keeps the thinking of the turns after the
    /// last user message, in the tool loop.
    @Test func qwen3KeepsTheThinkingOfTheToolLoop() throws {
        let text = try #require(Self.golden("Qwen-Qwen3-0.6B", "think_tool_loop", .auto))
        #expect(try Self.render("Qwen-Qwen3-0.6B", "think_tool_loop", .auto) == text)
        #expect(text.contains("<|im_start|>assistant\n<think>\nThe user wants the weather. I should call get_weather.\n</think>\n\n<tool_call>\n"))
        // A past turn before the last user message loses its thinking, as the template says.
        let second = try #require(Self.golden("Qwen-Qwen3-0.6B", "think_second_turn", .auto))
        #expect(!second.contains("Check divisors"))
    }

    /// gpt-oss reads the thinking from `thinking`, and shows it in the analysis channel before the call.
    @Test func gptOSSShowsTheReasoningInTheAnalysisChannel() throws {
        let text = try #require(try Self.render("openai-gpt-oss-120b", "think_tool_loop", .auto))
        #expect(text == Self.golden("openai-gpt-oss-120b", "think_tool_loop", .auto))
        #expect(text.contains("<|start|>assistant<|channel|>analysis<|message|>The user wants the weather. I should call get_weather.<|end|><|start|>assistant to=functions.get_weather"))
    }

    /// DeepSeek R1's template drops past thinking: the prompt after the call has none of it, and
    /// its generation prompt opens thinking again.
    @Test func deepSeekR1DropsPastThinking() throws {
        for name in ["deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "llama-cpp-deepseek-r1"] {
            let text = try #require(try Self.render(name, "think_tool_loop", .auto))
            #expect(text == Self.golden(name, "think_tool_loop", .auto))
            #expect(!text.contains("I should call get_weather"))
            #expect(text.hasSuffix("<｜Assistant｜><think>\n"))
        }
    }

    /// `--think off` and the effort levels change the prompt of the templates that read them.
    @Test func offAndEffortsChangeThePrompt() throws {
        func plain(_ name: String, _ setting: ReasoningSetting) throws -> String {
            try #require(try Self.render(name, "think_plain", setting))
        }
        #expect(try plain("Qwen-Qwen3-0.6B", .off).hasSuffix("<|im_start|>assistant\n<think>\n\n</think>\n\n"))
        #expect(try plain("Qwen-Qwen3-0.6B", .on) == plain("Qwen-Qwen3-0.6B", .auto))
        for effort in ReasoningSetting.Effort.allCases {
            #expect(try plain("openai-gpt-oss-120b", .effort(effort)).contains("Reasoning: \(effort.rawValue)"))
        }
        #expect(try plain("openai-gpt-oss-120b", .auto).contains("Reasoning: medium"))
        // A template that always opens thinking gets it closed.
        #expect(try plain("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", .off).hasSuffix("<think>\n</think>"))
        #expect(try plain("Cohere2MoE", .off).hasSuffix("<|START_THINKING|><|END_THINKING|>"))
        #expect(try plain("GLM-4.7-Flash", .off).hasSuffix("<|assistant|></think>"))
        #expect(try plain("MiniMax-M3", .off).hasSuffix("</mm:think>"))
        #expect(try plain("Kimi-K3", .off).hasSuffix("<|open|>response<|sep|>"))
        #expect(try plain("deepseek-ai-DeepSeek-V3.1", .on) != plain("deepseek-ai-DeepSeek-V3.1", .off))
        #expect(try plain("tencent-Hy3", .effort(.high)).contains("reasoning_effort:high"))
        #expect(try Self.render("tencent-Hy3", "think_plain", .effort(.medium)) == nil, "Hy3 takes no_think, low or high")
        // Every template that reads a switch renders differently on and off.
        let switching = Self.names.filter { name in
            let source = (try? TemplateGoldens.source(name)) ?? ""
            return ["enable_thinking", "thinking_mode"].contains { source.contains($0) }
        }
        #expect(switching.count >= 25)
        var unchanged: [String] = []
        for name in switching where try Self.render(name, "think_plain", .on) == Self.render(name, "think_plain", .off) {
            unchanged.append(name)
        }
        #expect(unchanged.isEmpty, "on and off render alike for \(unchanged)")
    }

    /// Past thinking is kept under `.auto` (GLM 4.7's clear_thinking false) and dropped under `.off`.
    @Test func pastReasoningIsKeptUnlessOff() throws {
        let kept = try #require(try Self.render("GLM-4.7-Flash", "think_second_turn", .auto))
        #expect(kept.contains("Check divisors up to 4"))
        let dropped = try #require(try Self.render("GLM-4.7-Flash", "think_second_turn", .off))
        #expect(!dropped.contains("Check divisors up to 4"))
    }

    @Test func slotsFollowTheFamilies() throws {
        #expect(try Self.prompt("openai-gpt-oss-120b").reasoningSlot == .thinkingKey(dropsContentWithCalls: true))
        #expect(try Self.prompt("LFM2-8B-A1B").reasoningSlot == .thinkingKey(dropsContentWithCalls: false))
        #expect(try Self.prompt("LFM2.5-8B-A1B").reasoningSlot == .thinkingKey(dropsContentWithCalls: false))
        #expect(try Self.prompt("mistralai-Ministral-3-14B-Reasoning-2512").reasoningSlot == .thinkingPart)
        #expect(try Self.prompt("Qwen-Qwen3-0.6B").reasoningSlot == .reasoningContent)
        #expect(try Self.prompt("mistralai-Ministral-3-14B-Reasoning-2512")
            .render(messages: try Self.conversation("think_second_turn").messages, tools: [], now: TemplateGoldens.now)
            .contains("[THINK]Check divisors up to 4: none divide 17.[/THINK]"))
    }
}
