import Foundation

/// How ``LlamaModel`` loads and runs a GGUF model.
public struct LlamaConfiguration: Sendable, Hashable {
    /// Context length in tokens; nil is the smaller of the model's training context and 4096.
    public var contextLength: Int?
    /// CPU threads for decoding and prompt processing; nil is the machine's core count.
    public var threads: Int?
    /// The most prompt tokens fed to llama.cpp in one step.
    public var batchSize: Int
    /// Layers to offload to a GPU (for GPU builds of llama.cpp).
    public var gpuLayers: Int

    public init(contextLength: Int? = nil, threads: Int? = nil, batchSize: Int = 512, gpuLayers: Int = 0) {
        self.contextLength = contextLength
        self.threads = threads
        self.batchSize = batchSize
        self.gpuLayers = gpuLayers
    }

    var resolvedThreads: Int32 { Int32(threads ?? ProcessInfo.processInfo.activeProcessorCount) }
}
