import Foundation
import Loopl
import LooplLlama
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
        case .stdio(let stdio):
            return try await StdioModel.start(StdioModel.Configuration(
                command: stdio.command, initializeTimeout: .seconds(stdio.initializeTimeoutSeconds ?? 30),
                idleTimeout: .seconds(stdio.idleTimeoutSeconds ?? 60)))
        case .server:
            throw LooplError(.invalidConfiguration, "Backend '\(name)' is of kind \(config.kind), which this build of loopl cannot run yet.")
        }
    }
}
