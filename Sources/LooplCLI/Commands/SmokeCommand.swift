import Loopl
import LooplLlama

/// `loopl smoke`: proves that llama.cpp and the default model work here.
struct SmokeCommand: Command {
    static let name = "smoke"
    static let abstract = "Load a model through libllama and generate a few tokens."
    static let help = """
        Load a model in-process through libllama and generate a few tokens greedily.
        The proof that the set-up (scripts/bootstrap) works.

        USAGE: loopl smoke [--model PATH] [--prompt TEXT] [--tokens N] [--threads N]

        OPTIONS:
          --model PATH     The GGUF model (default: the model scripts/bootstrap fetched).
          --prompt TEXT    The user's message (default: "What is the capital of France? Answer in one word.").
          --tokens N       How many tokens to generate, 1 to 256 (default: 16).
          --threads N      CPU threads, 1 to 256 (default: 2).
          -h, --help       Show this help.

        """

    var model: String
    var prompt: String
    var tokens: Int
    var threads: Int

    init(arguments: inout Arguments) throws(UsageError) {
        model = try arguments.option("model") ?? LooplHome.defaultModel
        prompt = try arguments.option("prompt") ?? "What is the capital of France? Answer in one word."
        tokens = try arguments.integer("tokens", in: 1...256) ?? 16
        threads = try arguments.integer("threads", in: 1...256) ?? 2
    }

    func run(_ console: Console) async throws -> ExitCode {
        console.err("loading \(model)")
        let llama = try await LlamaModel.start(.init(model: model, contextLength: 1024, threads: threads))
        defer { Task { await llama.close() } }
        for try await event in llama.generate(messages: [.user(prompt)], tools: [], options: .greedy(maxTokens: tokens)) {
            switch event {
            case .text(let text): console.out(text)
            case .metrics(let metrics) where metrics.finished:
                console.err("\n\(metrics.promptTokens) prompt tokens, \(metrics.generatedTokens) generated, stop: \(metrics.stopReason?.rawValue ?? "?")")
            default: break
            }
        }
        console.out("\n")
        return .success
    }
}
