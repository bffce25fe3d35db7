import Foundation
import Loopl
import LooplTestKit
@testable import LooplStdio

/// Paths and helpers the stdio tests share.
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let pythonWorker = packageRoot.appendingPathComponent("backends/python/worker.py").path
    /// The `loopl` binary built next to the tests.
    static let loopl = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopl").path
    static let modelPath = ProcessInfo.processInfo.environment["LOOPL_MODEL"] ?? LooplHome.defaultModel

    /// The Python worker's command line.
    static func python(_ arguments: [String] = []) -> [String] {
        ["python3", pythonWorker] + arguments
    }

    /// Waits up to 10 s until the worker's `--record` file holds `count` lines that contain
    /// `fragment`; returns whether it does.
    static func waitForRecord(_ record: String, _ fragment: String, count: Int = 1) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
            if text.split(separator: "\n").filter({ $0.contains(fragment) }).count >= count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// A fresh path for a `--fault-once` marker.
    static func markerPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("loopl-fault-\(UUID())").path
    }

    /// A config file whose `llama` backend uses 2 threads and a small context, and whose `stdio`
    /// backend serves it through this build's `loopl worker`.
    static func llamaConfig(chatTemplateFile: String? = nil) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-stdio-config-\(UUID()).json").path
        var llama: JSONObject = ["kind": "llama", "model": .string(modelPath), "contextLength": 1024, "threads": 2,
                                 "promptCacheDirectory": .string(freshPromptCacheFolder())]
        if let chatTemplateFile { llama["chatTemplateFile"] = .string(chatTemplateFile) }
        let config: JSONValue = [
            "default": "stdio",
            "backends": [
                "llama": .object(llama),
                "stdio": ["kind": "stdio", "command": [.string(loopl), "worker", "--backend", "llama", "--config", .string(path)],
                          "initializeTimeoutSeconds": 60, "idleTimeoutSeconds": 120],
            ],
        ]
        try config.jsonText().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// One turn's text and final metrics.
    static func collect(_ model: any Model, maxTokens: Int = 4) async throws -> (text: String, metrics: Metrics?) {
        var text = ""
        var metrics: Metrics?
        for try await event in model.generate(messages: [.user("Hello")], tools: [], options: .greedy(maxTokens: maxTokens)) {
            switch event {
            case .text(let chunk): text += chunk
            case .metrics(let m): metrics = m
            case .toolCall, .reasoning: break
            }
        }
        return (text, metrics)
    }

    /// One turn per prompt, all at once, each with `options`; outcomes in prompt order.
    static func together(_ model: any Model, _ prompts: [String], options: GenerationOptions) async -> [Result<String, any Error>] {
        await withTaskGroup(of: (Int, Result<String, any Error>).self) { group in
            for (index, prompt) in prompts.enumerated() {
                group.addTask {
                    do {
                        var text = ""
                        for try await event in model.generate(messages: [.user(prompt)], tools: [], options: options) {
                            if case .text(let chunk) = event { text += chunk }
                        }
                        return (index, .success(text))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var outcomes = [Result<String, any Error>](repeating: .failure(CancellationError()), count: prompts.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }
}
