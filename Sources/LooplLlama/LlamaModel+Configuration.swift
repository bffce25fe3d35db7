import Foundation
import Loopl

extension LlamaModel {
    /// How a ``LlamaModel`` loads and runs a GGUF model. Every default is written here once; the
    /// config file's keys have the same names.
    public struct Configuration: Sendable, Hashable {
        /// The most requests served at once (llama.cpp's sequences), 1 to 256.
        public static let parallelRange = 1...256

        /// The GGUF file; default the default model (`$LOOPL_MODEL`, else the one `scripts/bootstrap` fetched).
        public var model: String
        /// Each conversation's context length in tokens; nil (the default) is the smaller of the
        /// model's training context and 4096. The KV cache holds `parallel` times as many.
        public var contextLength: Int?
        /// CPU threads for decoding and prompt processing; nil (the default) is the machine's core count.
        public var threads: Int?
        /// The most tokens fed to llama.cpp in one step; default 512.
        public var batchSize: Int
        /// Layers to offload to a GPU, for GPU builds of llama.cpp; default 0.
        public var gpuLayers: Int
        /// A chat template (its Jinja text) used instead of the model's own; nil (the default) is the model's.
        public var chatTemplate: String?
        /// Requests served at once, decoded together; default 4.
        public var parallel: Int
        /// Requests that may wait for a place beyond `parallel`; one more fails with `busy`. Default 64.
        public var maxQueue: Int
        /// Whether control-token text in message content (`<|im_start|>` in a tool result) is
        /// parsed as the model's control tokens, as before; default false: it stays plain text.
        public var allowSpecialTokensInContent: Bool
        /// Whether a prompt that starts like another sequence's copies those cells rather than
        /// evaluating them again (the same system prompt and tools); default true.
        public var sharePrefixes: Bool
        /// Drafting several tokens to verify in one step; default ``Speculation/none``.
        public var speculative: Speculation
        /// The type of the cache's keys; nil (the default) is ``CacheType/q8_0`` when drafting, for
        /// greedy output identical to one token a step, and ``CacheType/f16`` otherwise, whose
        /// prompt processing is faster.
        public var cacheTypeK: CacheType?
        /// Whether attention uses llama.cpp's fused kernel; default ``FlashAttention/auto``, llama.cpp's choice.
        public var flashAttention: FlashAttention = .auto
        /// Whether evaluated prompts are saved on disk and a prompt that starts like a saved one
        /// loads its state (``promptCacheDirectory``); default false here, true in a config file.
        public var promptCache: Bool
        /// The most the prompt cache takes on disk, in MiB (least recently used out first); default 1024.
        public var promptCacheMiB: Int
        /// The prompt cache's folder; nil (the default) is `LOOPL_HOME/prompt-cache`.
        public var promptCacheDirectory: String?
        /// The longest a generating request should wait for its next token while prompts that
        /// arrived are evaluated in chunks beside it, in seconds (``interTokenBudgetRange``); default 0.2.
        public var interTokenBudgetSeconds: Double
        /// The inter-token budgets a configuration may give, in seconds.
        public static let interTokenBudgetRange = 0.001...60.0
        /// Whether a sliding-window model (Gemma 2 and 3, gpt-oss) keeps every cell of its
        /// windowed layers, as long as the context; default true. False keeps only each
        /// sequence's last window and a batch (less memory), and a reuse whose window is gone is
        /// evaluated again (docs/memory.md).
        public var swaFull: Bool
        /// Whether greedy output is the same whatever was reused (``reproducible``): prompts are
        /// evaluated in chunks that end at multiples of ``batchSize``, and a reused state (the
        /// conversation's own cells, a prefix copied from another sequence, a saved prompt) is cut
        /// back to such a boundary, so that every token is evaluated in the same batch shape as
        /// in a fresh evaluation; default false. Costs up to a batch of tokens evaluated again per
        /// reuse (docs/memory.md).
        public var reproducible: Bool
        /// The whitespace grammars allow inside JSON (tool calls, JSON answers); default ``GrammarSpacing/separated``.
        public var grammarSpacing: GrammarSpacing = .separated
        /// How embeddings pool their tokens; nil (the default) is what the GGUF declares, else mean.
        public var pooling: EmbeddingPooling?

        public init(model: String = LooplHome.defaultModel, contextLength: Int? = nil, threads: Int? = nil,
                    batchSize: Int = 512, gpuLayers: Int = 0, chatTemplate: String? = nil, parallel: Int = 4,
                    maxQueue: Int = 64, allowSpecialTokensInContent: Bool = false, sharePrefixes: Bool = true,
                    speculative: Speculation = .none, cacheTypeK: CacheType? = nil, promptCache: Bool = false,
                    promptCacheMiB: Int = 1024, promptCacheDirectory: String? = nil, interTokenBudgetSeconds: Double = 0.2,
                    swaFull: Bool = true, reproducible: Bool = false) {
            self.reproducible = reproducible
            self.interTokenBudgetSeconds = interTokenBudgetSeconds
            self.swaFull = swaFull
            self.cacheTypeK = cacheTypeK
            self.sharePrefixes = sharePrefixes
            self.promptCache = promptCache
            self.promptCacheMiB = promptCacheMiB
            self.promptCacheDirectory = promptCacheDirectory
            self.model = model
            self.contextLength = contextLength
            self.threads = threads
            self.batchSize = batchSize
            self.gpuLayers = gpuLayers
            self.chatTemplate = chatTemplate
            self.parallel = parallel
            self.maxQueue = maxQueue
            self.allowSpecialTokensInContent = allowSpecialTokensInContent
            self.speculative = speculative
        }

        var resolvedCacheTypeK: CacheType { cacheTypeK ?? (speculative.kind == .none ? .f16 : .q8_0) }
        var resolvedThreads: Int32 { Int32(threads ?? ProcessInfo.processInfo.activeProcessorCount) }
        /// The inter-token budget, within ``interTokenBudgetRange``.
        var interTokenBudget: Duration {
            .seconds(min(max(interTokenBudgetSeconds, Self.interTokenBudgetRange.lowerBound), Self.interTokenBudgetRange.upperBound))
        }
        /// The positions prompt chunks end at (a multiple of it) when ``reproducible``; nil otherwise.
        var alignment: Int? { reproducible ? max(batchSize, 1) : nil }
        package var resolvedParallel: Int { min(max(parallel, Self.parallelRange.lowerBound), Self.parallelRange.upperBound) }
    }

    /// The `llama` kind of a configuration file: `{"kind": "llama", "model": ..., "contextLength": ...,
    /// "threads": ..., "batchSize": ..., "gpuLayers": ..., "chatTemplate": NAME, "chatTemplateFile": ..., "parallel": ...,
    /// "maxQueue": ..., "allowSpecialTokensInContent": ..., "sharePrefixes": ..., "speculative": {"type": "ngram" | "draft" | "none",
    /// "draftMax": ..., "draftModel": ...}, "cacheTypeK": "f16" | "q8_0", "flashAttention": "auto" | "on" | "off", "promptCache": ..., "promptCacheMiB": ..., "promptCacheDirectory": ...,
    /// "interTokenBudgetSeconds": ..., "swaFull": ..., "reproducible": ..., "grammarSpacing": "separated" | "compact" | "spacious", "pooling": "mean" | "cls" | "last"}`, every key
    /// optional; `promptCache` is on unless it says false (or, when it is not given, `LOOPL_PROMPT_CACHE=0`).
    public static let kind = BackendKind(name: "llama", builtIn: [:], read: Configuration.init(from:), problem: { configuration in
        if !FileManager.default.fileExists(atPath: configuration.model) { return "no model file at \(configuration.model)" }
        if let draft = configuration.speculative.draftModel, !FileManager.default.fileExists(atPath: draft) { return "no draft model file at \(draft)" }
        return nil
    }, capacity: { configuration in
        BackendCapacity(parallel: configuration.resolvedParallel, maxQueue: configuration.maxQueue)
    }, start: { configuration in
        try await LlamaModel.start(configuration)
    })
}

extension LlamaModel.Configuration {
    /// Reads a `llama` section of a configuration file (``LlamaModel/kind``), every key optional.
    package init(from section: inout ConfigSection) throws {
        self.init(promptCache: LooplHome.environment("LOOPL_PROMPT_CACHE") != "0")
        if let model = try section.optionalPath("model") { self.model = model }
        try section.read("contextLength", into: &contextLength)
        try section.read("threads", into: &threads)
        try section.read("batchSize", into: &batchSize)
        try section.read("gpuLayers", into: &gpuLayers)
        chatTemplate = try section.chatTemplate()
        let capacity = try BackendCapacity.read(from: &section, range: Self.parallelRange)
        (parallel, maxQueue) = (capacity.parallel, capacity.maxQueue)
        try section.read("allowSpecialTokensInContent", into: &allowSpecialTokensInContent)
        try section.read("sharePrefixes", into: &sharePrefixes)
        if let speculative = try Speculation.read(from: &section) { self.speculative = speculative }
        cacheTypeK = try section.optionalChoice("cacheTypeK")
        flashAttention = try section.optionalChoice("flashAttention") ?? .auto
        grammarSpacing = try section.optionalChoice("grammarSpacing")
            ?? LooplHome.environment(GrammarSpacing.environmentVariable).flatMap(GrammarSpacing.init(rawValue:)) ?? .separated
        pooling = try section.optionalChoice("pooling")
        try section.read("promptCache", into: &promptCache)
        try section.read("promptCacheMiB", into: &promptCacheMiB)
        promptCacheDirectory = try section.optionalPath("promptCacheDirectory") ?? promptCacheDirectory
        try section.read("swaFull", into: &swaFull)
        try section.read("reproducible", into: &reproducible)
        try section.read("interTokenBudgetSeconds", into: &interTokenBudgetSeconds)
        guard Self.interTokenBudgetRange.contains(interTokenBudgetSeconds) else {
            throw section.error("'interTokenBudgetSeconds' must be from 0.001 to 60, the seconds a generating request may wait for its next token while prompts load")
        }
        guard promptCacheMiB >= 0 else { throw section.error("'promptCacheMiB' must be 0 or more, the MiB the prompt cache takes on disk") }
    }
}
