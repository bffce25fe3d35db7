#if canImport(Glibc)
import Glibc
#endif

/// Where Loopl's set-up puts llama.cpp and the default model (`scripts/bootstrap`).
///
/// `LOOPL_HOME` moves the whole cache (default `~/.cache/loopl`); `LOOPL_MODEL` and
/// `LOOPL_LLAMA_SERVER` point at one file each.
public enum LooplHome {
    /// The llama.cpp version that `scripts/bootstrap` pins (as the llama-cpp-python release that vendors it).
    public static let llamaCppVersion = "0.3.36"
    /// The default model's file name.
    public static let defaultModelFile = "SmolLM2-135M-Instruct.Q4_1.gguf"

    /// The cache folder.
    public static var directory: String {
        if let home = environment("LOOPL_HOME"), !home.isEmpty { return home }
        return (environment("HOME") ?? "/root") + "/.cache/loopl"
    }

    /// The default model's path.
    public static var defaultModel: String {
        environment("LOOPL_MODEL") ?? directory + "/models/" + defaultModelFile
    }

    /// The pinned `llama-server` binary.
    public static var llamaServer: String {
        environment("LOOPL_LLAMA_SERVER") ?? directory + "/llama.cpp-\(llamaCppVersion)/bin/llama-server"
    }

    /// The pinned `llama-bench` binary.
    public static var llamaBench: String {
        environment("LOOPL_LLAMA_BENCH") ?? directory + "/llama.cpp-\(llamaCppVersion)/bin/llama-bench"
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
