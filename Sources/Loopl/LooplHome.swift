#if canImport(Glibc)
import Glibc
#endif

/// Where Loopl's set-up keeps the default model (`scripts/bootstrap`).
///
/// `LOOPL_HOME` moves the whole cache (default `~/.cache/loopl`); `LOOPL_MODEL` points at another
/// model file.
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

    /// The value of the environment variable `name`, if set.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
