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

    /// The config `load` finds; names it on standard error when it came from the working folder or
    /// `$LOOPL_CONFIG` rather than from the command line or the user's own file, so that a
    /// config the user did not name is never used silently.
    static func config(path: String?, console: Console) throws -> LooplConfig {
        let config = try LooplConfig.load(explicit: path, kinds: kinds)
        if let source = config.source, config.origin == .folder || config.origin == .environment {
            console.err("loopl: using the configuration file \(source)")
        }
        return config
    }
}
