import Foundation
import Loopl

extension LlamaModel {
    /// How a ``LlamaModel`` loads and runs a GGUF model. Every default is written here once; the
    /// config file's keys have the same names.
    public struct Configuration: Sendable, Hashable {
        /// The GGUF file; default ``LooplHome/defaultModel``.
        public var model: String
        /// Context length in tokens; nil (the default) is the smaller of the model's training
        /// context and 4096.
        public var contextLength: Int?
        /// CPU threads for decoding and prompt processing; nil (the default) is the machine's core count.
        public var threads: Int?
        /// The most prompt tokens fed to llama.cpp in one step; default 512.
        public var batchSize: Int
        /// Layers to offload to a GPU, for GPU builds of llama.cpp; default 0.
        public var gpuLayers: Int
        /// A chat template (its Jinja text) used instead of the model's own; nil (the default) is the model's.
        public var chatTemplate: String?

        public init(model: String = LooplHome.defaultModel, contextLength: Int? = nil, threads: Int? = nil,
                    batchSize: Int = 512, gpuLayers: Int = 0, chatTemplate: String? = nil) {
            self.model = model
            self.contextLength = contextLength
            self.threads = threads
            self.batchSize = batchSize
            self.gpuLayers = gpuLayers
            self.chatTemplate = chatTemplate
        }

        var resolvedThreads: Int32 { Int32(threads ?? ProcessInfo.processInfo.activeProcessorCount) }
    }

    /// The `llama` kind of a configuration file: `{"kind": "llama", "model": ..., "contextLength": ...,
    /// "threads": ..., "batchSize": ..., "gpuLayers": ..., "chatTemplateFile": ...}`, every key optional.
    public static let kind = BackendKind(name: "llama", builtIn: [:], read: { section in
        var configuration = Configuration()
        try section.read("model", into: &configuration.model)
        try section.read("contextLength", into: &configuration.contextLength)
        try section.read("threads", into: &configuration.threads)
        try section.read("batchSize", into: &configuration.batchSize)
        try section.read("gpuLayers", into: &configuration.gpuLayers)
        if let path = try section.optionalString("chatTemplateFile") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw LooplError(.invalidConfiguration, "Cannot read the chat template file \(path) (chatTemplateFile).")
            }
            configuration.chatTemplate = text
        }
        return configuration
    }, problem: { configuration in
        FileManager.default.fileExists(atPath: configuration.model) ? nil : "no model file at \(configuration.model)"
    }, start: { configuration in
        try await LlamaModel.start(configuration)
    })
}
