import Foundation
import Loopl
@testable import LooplCLI
import LooplLlama
import LooplServer
import LooplTestKit
import Testing

/// A model without a chat template is warned about once and rendered as ChatML; a template is
/// chosen by a built-in name or a file, on the command line and in every kind that renders.
@Suite struct ChatTemplateChoiceTests {
    static let warning = "\(LooplHome.secondModel) has no chat template; using chatml (choose one with --chat-template)"

    @Test func aModelWithoutATemplateIsWarnedAboutOncePerProcess() async throws {
        let warnings = try await captureWarnings {
            for _ in 0..<3 { _ = try ChatPrompt(modelFile: LooplHome.secondModel) }
            _ = try ChatPrompt(modelFile: LooplHome.defaultModel)
            _ = try ChatPrompt(modelFile: LooplHome.secondModel, template: try BuiltInTemplate.named("gemma").source)
        }
        // Another test of this process may have warned first; never twice.
        #expect(warnings.count <= 1 && warnings.allSatisfy { $0 == Self.warning }, "\(warnings)")
        let prompt = try ChatPrompt(modelFile: LooplHome.secondModel)
        #expect(try prompt.text(messages: [.user("Hi")], tools: []).hasSuffix("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"))
    }

    @Test func loopRunWarnsOnStandardErrorOnceAndTheGemmaTemplateRendersGemmaTurns() throws {
        let plain = try ToolingCommandTests.loopl(["run", "--backend", "llama", "-m", LooplHome.secondModel, "--max-tokens", "4",
                                                   "--temperature", "0", "Hi"], within: .seconds(300))
        #expect(plain.status == 0, "\(plain.err)")
        #expect(plain.err.components(separatedBy: "warning: " + Self.warning + "\n").count == 2, "\(plain.err)")
        let chosen = try ToolingCommandTests.loopl(["run", "--backend", "llama", "-m", LooplHome.secondModel, "--chat-template", "GEMMA",
                                                    "--max-tokens", "4", "--temperature", "0", "Hi"], within: .seconds(300))
        #expect(chosen.status == 0, "\(chosen.err)")
        #expect(!chosen.err.contains("no chat template"), "\(chosen.err)")
        let unknown = try ToolingCommandTests.loopl(["run", "--backend", "llama", "-m", LooplHome.secondModel, "--chat-template", "vicuna", "Hi"],
                                                    within: .seconds(300))
        #expect(unknown.status != 0)
        #expect(unknown.err.contains("no built-in chat template called 'vicuna'; the names are chatml, llama3, gemma, mistral, phi3, deepseek, qwen"),
                "\(unknown.err)")
    }

    @Test func everyBuiltInTemplateRendersAConversationInItsFamilysFormat() throws {
        let expected: [String: (marker: String, format: ToolCallFormat)] = [
            "chatml": ("<|im_start|>user", .hermes), "llama3": ("<|start_header_id|>user<|end_header_id|>", .llama3),
            "gemma": ("<start_of_turn>user", .hermes), "mistral": ("[INST]", .mistral),
            "phi3": ("<|user|>", .hermes), "deepseek": ("<｜User｜>", .deepSeekR1), "qwen": ("<|im_start|>user", .hermes),
        ]
        #expect(Set(BuiltInTemplate.all.map(\.name)) == Set(expected.keys))
        let messages: [Message] = [.system("Be brief."), .user("What is 2+2?"), .assistant("4"), .user("And 3+3?")]
        for entry in BuiltInTemplate.all {
            let prompt = try ChatPrompt(templateSource: entry.source, bosText: "<s>", eosText: "</s>", addsBOS: false)
            let text = try prompt.text(messages: messages, tools: [])
            #expect(text.contains(try #require(expected[entry.name]).marker) && text.contains("And 3+3?"), "\(entry.name): \(text)")
            #expect(prompt.toolCallFormat == expected[entry.name]?.format, "\(entry.name)")
            #expect(try BuiltInTemplate.named(entry.name.uppercased()).name == entry.name)
        }
    }

    @Test func aValueIsAFileOrAName() throws {
        #expect(BuiltInTemplate.isFile("templates/x"))
        #expect(BuiltInTemplate.isFile("mine.jinja"))
        #expect(!BuiltInTemplate.isFile("Qwen"))
        #expect(BackendOverrides(chatTemplate: "/t/qwen").keys == ["chatTemplateFile": "/t/qwen", "chatTemplate": .null])
        #expect(BackendOverrides(chatTemplate: "Qwen").keys == ["chatTemplateFile": .null, "chatTemplate": "Qwen"])
        #expect(BackendOverrides(chatTemplate: "gemma").workerArguments == ["--chat-template", "gemma"])
    }

    @Test func everyKindThatRendersReadsChatTemplate() throws {
        var llama = ConfigSection(["chatTemplate": "Gemma"], context: "backend 'l'")
        #expect(try LlamaModel.Configuration(from: &llama).chatTemplate == BuiltInTemplate.named("gemma").source)
        var server = ConfigSection(["chatTemplate": "qwen"], context: "backend 's'")
        let configuration = try LlamaServerModel.configuration(from: &server)
        #expect(configuration.chatTemplate == (try BuiltInTemplate.named("qwen").source))
        var attached = ConfigSection(["url": "http://127.0.0.1:1", "chatTemplate": "qwen"], context: "backend 'a'")
        #expect(throws: LooplError.self) { try LlamaServerModel.configuration(from: &attached) }
        var both = ConfigSection(["chatTemplate": "qwen", "chatTemplateFile": "/x.jinja"], context: "backend 'b'")
        #expect(throws: LooplError(.invalidConfiguration, "Invalid configuration: backend 'b': give 'chatTemplate' (a built-in name) or 'chatTemplateFile', not both.")) {
            try LlamaServerModel.configuration(from: &both)
        }
        var unknown = ConfigSection(["chatTemplate": "vicuna"], context: "backend 'u'")
        #expect(throws: LooplError.self) { try LlamaModel.Configuration(from: &unknown) }
    }
}
