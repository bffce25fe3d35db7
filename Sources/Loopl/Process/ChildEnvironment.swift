import Foundation

/// The environment a third-party child (an MCP server, a stdio worker) starts with: a few
/// harmless host variables, those the config asks for, and the config's own values; never the
/// host's whole environment, which holds API keys and tokens.
package enum ChildEnvironment {
    /// The host variables every third-party child gets: what a program needs to find its
    /// commands, its home, its locale, its terminal and its temporary folder. None holds a secret.
    package static let basic = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "USER"]

    /// The `basic` variables and those named in `inherit` that are set in `host`, then `set`
    /// on top (overriding).
    package static func minimal(inherit: [String] = [], set: [String: String] = [:],
                                host: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment: [String: String] = [:]
        for name in basic + inherit {
            if let value = host[name] { environment[name] = value }
        }
        environment.merge(set) { _, new in new }
        return environment
    }
}
