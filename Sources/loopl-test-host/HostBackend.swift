import Foundation
import Loopl
#if LOOPL_WITH_LLAMA
import LooplLlama
#endif
import LooplServer
import LooplStdio

/// One backend on the default model with a small context and one thread (two threads crawl on a busy 2-core machine): in-process llama.cpp,
/// a child llama-server, or a `loopl worker` child over stdio.
enum HostBackend: String, CaseIterable, Sendable {
    case llama, server, stdio

    static let contextLength = 512
    static let threads = 1

    init(name: String) throws {
        guard let backend = HostBackend(rawValue: name) else {
            throw LooplError(.invalidRequest, "Unknown backend '\(name)': use llama, server or stdio.")
        }
        self = backend
    }

    /// The `loopl` binary built next to this host (it serves the stdio backend as `loopl worker`).
    static var looplBinary: String {
        get throws { URL(fileURLWithPath: try RunningExecutable.path()).deletingLastPathComponent().appendingPathComponent("loopl").path }
    }

    /// Starts the backend: the model is loaded and any child runs when this returns.
    func start() async throws -> any Model {
        let modelPath = LooplHome.defaultModel
        switch self {
        case .llama:
            #if LOOPL_WITH_LLAMA
            return try await LlamaModel.start(.init(model: modelPath, contextLength: Self.contextLength, threads: Self.threads))
            #else
            throw LooplError(.invalidConfiguration, "This build has no llama.cpp (LOOPL_WITHOUT_LLAMA was set): unset it and rebuild to use the llama backend.")
            #endif
        case .server:
            return try await LlamaServerModel.start(.init(target: .child(model: modelPath), contextLength: Self.contextLength,
                                                          threads: Self.threads))
        case .stdio:
            // The worker reads this config while it starts; it is not needed once the worker answered.
            let config = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-test-host-\(getpid()).json").path
            let text: JSONValue = [
                "default": "llama",
                "backends": ["llama": ["kind": "llama", "model": .string(modelPath),
                                       "contextLength": .integer(Self.contextLength), "threads": .integer(Self.threads)]],
            ]
            try text.jsonText().write(toFile: config, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: config) }
            var configuration = StdioModel.Configuration(
                command: [try Self.looplBinary, "worker", "--backend", "llama", "--config", config],
                initializeTimeout: .seconds(60), idleTimeout: .seconds(60))
            configuration.inheritsHostEnvironment = true  // Loopl's own worker
            return try await StdioModel.start(configuration)
        }
    }

    /// The backend's child process, if it has one.
    static func childProcessID(of model: any Model) async -> Int32? {
        if let server = model as? LlamaServerModel { return await server.serverProcessID }
        if let stdio = model as? StdioModel { return stdio.workerPID }
        return nil
    }

    /// Prints "child <pid>" (-1 without a child), then "generating" at the first text, and keeps
    /// generating long answers until the process is killed.
    func generateForever() async throws -> Never {
        let model = try await start()
        say("child \(await Self.childProcessID(of: model) ?? -1)")
        var announced = false
        while true {
            for try await event in model.generate(messages: [.user("Write a very long story about a lighthouse keeper.")],
                                                  tools: [], options: .greedy(maxTokens: 256)) {
                if !announced, case .text = event {
                    say("generating")
                    announced = true
                }
            }
        }
    }

    /// `hold`: starts a child llama-server on `modelPath` with `rpcWorkers` RPC workers, prints
    /// "child <pid>" followed by the workers' pids, and waits for "exit" or the end of standard input.
    static func hold(modelPath: String, rpcWorkers: Int = 0) async throws {
        let model = try await LlamaServerModel.start(.init(target: .child(model: modelPath), contextLength: 256, threads: 1,
                                                           rpcWorkers: rpcWorkers))
        let workers = await model.rpcWorkerProcessIDs.map { " \($0)" }
        say("child \(await model.serverProcessID ?? -1)" + workers.joined())
        while let line = readLine(), line != "exit" {}
    }
}
