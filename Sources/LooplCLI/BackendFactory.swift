import Foundation
import Loopl
import LooplLlama
import LooplServer
import LooplStdio

/// The backend kinds the `loopl` command links, and the router over them.
enum BackendFactory {
    /// The command that runs this `loopl` binary (for `loopl worker`).
    static var selfCommand: [String] {
        [URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.resolvingSymlinksInPath().path]
    }

    /// `llama` (the default), `server`, and `stdio` over `loopl worker --backend llama`, which is
    /// also built in as `isolated`: the in-process engine in a child, so that its crash costs a
    /// retried turn instead of the program (docs/server-backend.md, "Choosing a backend").
    static var kinds: [BackendKind] {
        [LlamaModel.kind, LlamaServerModel.kind,
         StdioModel.kind(builtInCommand: selfCommand + ["worker", "--backend", "llama"], alsoBuiltInAs: ["isolated"])]
    }

    static func config(path: String?) throws -> LooplConfig {
        try LooplConfig.load(explicit: path, kinds: kinds)
    }

    static func router(configPath: String?) throws -> Router {
        Router(config: try config(path: configPath))
    }
}
