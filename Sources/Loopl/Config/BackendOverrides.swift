import Foundation

/// Settings that a command line puts over every configured backend (`-m`, `-t`, `-c`, `-ngl`,
/// `--chat-template`):
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
    /// The chat template: a built-in name or a file (``isTemplateFile(_:)``).
    package var chatTemplate: String?

    package init(model: String? = nil, threads: Int? = nil, contextLength: Int? = nil, gpuLayers: Int? = nil,
                 chatTemplate: String? = nil) {
        self.chatTemplate = chatTemplate
        self.model = model
        self.threads = threads
        self.contextLength = contextLength
        self.gpuLayers = gpuLayers
    }

    /// True when it overrides nothing.
    package var isEmpty: Bool { self == BackendOverrides() }

    /// The overrides as config keys (`model`, `threads`, `contextLength`, `gpuLayers`, and
    /// `chatTemplate` or `chatTemplateFile`, the other one cleared): what a kind whose section
    /// has those keys writes.
    package var keys: JSONObject {
        var keys = JSONObject()
        // A path on the command line is the current folder's, not the config file's.
        if let model { keys["model"] = .string(ConfigPath.resolve(model, kind: .path, folder: FileManager.default.currentDirectoryPath)) }
        if let threads { keys["threads"] = .integer(threads) }
        if let contextLength { keys["contextLength"] = .integer(contextLength) }
        if let gpuLayers { keys["gpuLayers"] = .integer(gpuLayers) }
        if let chatTemplate {
            let isFile = Self.isTemplateFile(chatTemplate)
            let file = ConfigPath.resolve(chatTemplate, kind: .path, folder: FileManager.default.currentDirectoryPath)
            keys["chatTemplateFile"] = isFile ? .string(file) : .null
            keys["chatTemplate"] = isFile ? .null : .string(chatTemplate)
        }
        return keys
    }

    /// The overrides as `loopl worker` options, for a stdio backend that runs Loopl's own worker.
    /// Whether a `--chat-template` or `chatTemplate` value is a file rather than a name: it
    /// names an existing file, contains `/` or ends in `.jinja`.
    package static func isTemplateFile(_ value: String) -> Bool {
        value.contains("/") || value.hasSuffix(".jinja") || FileManager.default.fileExists(atPath: value)
    }

    package var workerArguments: [String] {
        [model.map { ["--model", $0] }, threads.map { ["--threads", String($0)] },
         contextLength.map { ["--ctx-size", String($0)] }, gpuLayers.map { ["--gpu-layers", String($0)] },
         chatTemplate.map { ["--chat-template", Self.isTemplateFile($0) ? ConfigPath.resolve($0, kind: .path, folder: FileManager.default.currentDirectoryPath) : $0] }]
            .compactMap { $0 }.flatMap { $0 }
    }
}
