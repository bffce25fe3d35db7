import Foundation

extension ChildProcess {
    /// The path that runs `name`: itself when absolute, under `directory` when relative, else
    /// the first executable of that name in an absolute folder of `searchPath` (default: this
    /// process's `PATH`). A bare name is never looked up in the current folder, as a shell does
    /// not, even when `PATH` has `.` or an empty entry. Throws `processFailed` when none is found.
    package static func executable(_ name: String, searchPath: String? = nil, directory: String? = nil) throws -> String {
        if name.hasPrefix("/") { return name }
        if name.contains("/") { return directory.map { $0 + "/" + name } ?? name }
        let path = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw LooplError(.processFailed, "Cannot run \(name): no executable of that name on PATH (the current folder is not searched). Install it, or give its path (./\(name) for one in the current folder).")
    }

    /// The exit status and the last lines on stderr, as a sentence to append to an error.
    package var details: String {
        var text = ""
        if let status = exitStatus { text += " Exit status \(status)." }
        let lines = lastLines.split(separator: "\n", omittingEmptySubsequences: true).suffix(8)
        if !lines.isEmpty {
            text += " Its last lines on stderr:\n" + lines.map { "  " + String($0).cut(toBytes: 300) }.joined(separator: "\n")
        }
        return text
    }
}
