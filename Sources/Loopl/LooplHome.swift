#if canImport(Glibc)
import Glibc
#endif

/// Where Loopl's set-up keeps the default model and the second one (`scripts/bootstrap`).
///
/// `LOOPL_HOME` moves the whole cache (default `~/.cache/loopl`); `LOOPL_MODEL` points at another
/// model file, `LOOPL_SECOND_MODEL` at another second model, `LOOPL_PROMPT_CACHE_DIR` the prompt cache.
@usableFromInline package enum LooplHome {
    /// The default model's file name.
    package static let defaultModelFile = "SmolLM2-135M-Instruct.Q4_1.gguf"

    /// The cache folder.
    package static var directory: String {
        if let home = environment("LOOPL_HOME"), !home.isEmpty { return home }
        return (environment("HOME") ?? "/root") + "/.cache/loopl"
    }

    /// The default model's path: every backend's model when its configuration names none (a
    /// default argument of the backends' public configurations, hence usable from inline code).
    @usableFromInline package static var defaultModel: String {
        environment("LOOPL_MODEL") ?? directory + "/models/" + defaultModelFile
    }

    /// The second model's file name: Gemma 3 270M, of another family than the default model
    /// (sliding-window attention, no chat template), on which the tests of memory reuse run too.
    package static let secondModelFile = "gemma-3-270m-q4_k_m.gguf"

    /// The second model's path.
    package static var secondModel: String {
        environment("LOOPL_SECOND_MODEL") ?? directory + "/models/" + secondModelFile
    }

    /// The prompt cache's default folder: `LOOPL_PROMPT_CACHE_DIR`, else `prompt-cache` in the cache folder.
    package static var promptCacheDirectory: String {
        environment("LOOPL_PROMPT_CACHE_DIR").flatMap { $0.isEmpty ? nil : $0 } ?? directory + "/prompt-cache"
    }

    /// The value of the environment variable `name`, if set.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
