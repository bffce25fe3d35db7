import Foundation

/// Settings that a command line puts over every configured backend (`-m`, `-t`, `-c`, `-ngl`):
/// each ``BackendKind`` writes them into its own section.
package struct BackendOverrides: Sendable, Hashable {
    /// The GGUF file to run instead of the configured one.
    package var model: String?
    /// CPU threads.
    package var threads: Int?
    /// Context length in tokens.
    package var contextLength: Int?
    /// Layers to offload to a GPU.
    package var gpuLayers: Int?

    package init(model: String? = nil, threads: Int? = nil, contextLength: Int? = nil, gpuLayers: Int? = nil) {
        self.model = model
        self.threads = threads
        self.contextLength = contextLength
        self.gpuLayers = gpuLayers
    }

    /// True when it overrides nothing.
    package var isEmpty: Bool { self == BackendOverrides() }

    /// The overrides as config keys (`model`, `threads`, `contextLength`, `gpuLayers`): what a
    /// kind whose section has those keys writes.
    package var keys: JSONObject {
        var keys = JSONObject()
        // A path on the command line is the current folder's, not the config file's.
        if let model { keys["model"] = .string(ConfigPath.resolve(model, kind: .path, folder: FileManager.default.currentDirectoryPath)) }
        if let threads { keys["threads"] = .integer(threads) }
        if let contextLength { keys["contextLength"] = .integer(contextLength) }
        if let gpuLayers { keys["gpuLayers"] = .integer(gpuLayers) }
        return keys
    }

    /// The overrides as `loopl worker` options, for a stdio backend that runs Loopl's own worker.
    package var workerArguments: [String] {
        [model.map { ["--model", $0] }, threads.map { ["--threads", String($0)] },
         contextLength.map { ["--ctx-size", String($0)] }, gpuLayers.map { ["--gpu-layers", String($0)] }]
            .compactMap { $0 }.flatMap { $0 }
    }
}
