import Loopl

/// The llama.cpp binaries that `scripts/bootstrap` builds and pins, under the cache folder (`$LOOPL_HOME`, default `~/.cache/loopl`).
///
/// Each path can be moved by an environment variable: `LOOPL_LLAMA_SERVER`, `LOOPL_LLAMA_BENCH`,
/// `LOOPL_LLAMA_BATCHED_BENCH`, `LOOPL_RPC_SERVER`.
public enum LlamaCppInstall {
    /// The pinned llama.cpp version (the llama-cpp-python release that vendors it).
    public static let version = "0.3.36"

    /// The install folder.
    public static var prefix: String { LooplHome.directory + "/llama.cpp-\(version)" }

    /// `llama-server`.
    public static var server: String { binary("llama-server", "LOOPL_LLAMA_SERVER") }
    /// `llama-bench`.
    public static var bench: String { binary("llama-bench", "LOOPL_LLAMA_BENCH") }
    /// `llama-batched-bench`.
    public static var batchedBench: String { binary("llama-batched-bench", "LOOPL_LLAMA_BATCHED_BENCH") }
    /// `ggml-rpc-server`, llama.cpp's RPC worker.
    public static var rpcServer: String { binary("ggml-rpc-server", "LOOPL_RPC_SERVER") }

    private static func binary(_ name: String, _ variable: String) -> String {
        LooplHome.environment(variable) ?? prefix + "/bin/" + name
    }
}
