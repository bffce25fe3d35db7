import Foundation
import Loopl
import LooplLlama
import LooplServer
import LooplStdio

/// Builds a model from a configured backend: the bridge between the router and the backend modules.
enum BackendFactory {
    /// The command that runs this `loopl` binary (for `loopl worker`).
    static var selfCommand: [String] {
        [URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.resolvingSymlinksInPath().path]
    }

    static func router(configPath: String?) throws -> Router {
        Router(config: try LooplConfig.load(explicit: configPath, workerCommand: selfCommand), factory: make)
    }

    @Sendable static func make(name: String, config: BackendConfig) async throws -> any Model {
        switch config {
        case .llama(let llama):
            return try LlamaModel(path: llama.model, configuration: LlamaConfiguration(
                contextLength: llama.contextLength, threads: llama.threads,
                batchSize: llama.batchSize ?? 512, gpuLayers: llama.gpuLayers ?? 0))
        case .server(let server):
            if let url = server.url {
                guard let parsed = URL(string: url), parsed.host != nil else {
                    throw LooplError(.invalidConfiguration, "Backend '\(name)': '\(url)' is not a URL.")
                }
                var configuration = LlamaServerConfiguration.attach(url: parsed, apiKey: server.apiKey)
                configuration.contextLength = server.contextLength
                return LlamaServerModel(configuration: configuration)
            }
            let model = server.model ?? LooplHome.defaultModel
            // A child renders with Loopl's engine and grammars: the same tokens as in-process, and
            // tool choices that llama-server's own chat handling cannot honour on every template.
            var configuration = LlamaServerConfiguration.child(model: model, contextLength: server.contextLength, threads: server.threads)
            configuration.serverPath = server.binary ?? LooplHome.llamaServer
            configuration.extraArguments = server.extraArgs
            configuration.renderer = try ChatPromptRenderer(modelPath: model)
            return LlamaServerModel(configuration: configuration)
        case .stdio(let stdio):
            return try await StdioModel.start(StdioModel.Configuration(
                command: stdio.command, initializeTimeout: .seconds(stdio.initializeTimeoutSeconds ?? 30),
                idleTimeout: .seconds(stdio.idleTimeoutSeconds ?? 60)))
        }
    }
}
