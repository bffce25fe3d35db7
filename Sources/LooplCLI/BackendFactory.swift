import Foundation
import Loopl
import LooplLlama
import LooplServer
import LooplStdio

/// The backend kinds the `loopl` command links, and the router over them.
enum BackendFactory {
    /// The command that runs this `loopl` binary (for `loopl worker`): the binary the kernel
    /// runs, never a name looked up in the current folder.
    static var selfCommand: [String] {
        get throws { [try RunningExecutable.path()] }
    }

    /// `llama` (the default), `server`, and `stdio` over `loopl worker --backend llama`, which is
    /// also built in as `isolated`: the in-process engine in a child, so that its crash costs a
    /// retried turn instead of the program (docs/server-backend.md, "Choosing a backend").
    /// Throws `processFailed` when the running binary cannot be found (``RunningExecutable``).
    static var kinds: [BackendKind] {
        get throws {
            [LlamaModel.kind, LlamaServerModel.kind,
             StdioModel.kind(builtInCommand: try selfCommand + ["worker", "--backend", "llama"], alsoBuiltInAs: ["isolated"])]
        }
    }

    static func config(path: String?) throws -> LooplConfig {
        try LooplConfig.load(explicit: path, kinds: kinds)
    }

    static func router(configPath: String?) throws -> Router {
        Router(config: try config(path: configPath))
    }
}
