import Foundation

/// How a configuration file's paths are read: relative to the file's folder, not to the folder
/// Loopl happens to run in, with `~` for the user's home. It names no key: each section's reader
/// says which of its keys are paths (``ConfigSection/optionalPath(_:)`` and its kin).
public enum ConfigPath {
    /// What a path key holds.
    public enum Kind: Sendable, Equatable {
        /// A file or folder.
        case path
        /// A program: a path when it has a `/`, else a name to find on PATH.
        case program
        /// A command line, a list whose first item is a program.
        case command
    }

    /// `text` as a path of `kind` read from a file in `folder` (nil: taken as it is, `~` expanded).
    public static func resolve(_ text: String, kind: Kind, folder: String?,
                               home: String = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()) -> String {
        if text == "~" { return home }
        if text.hasPrefix("~/") { return home + text.dropFirst() }
        guard let folder, !text.isEmpty, !text.hasPrefix("/"), kind == .path || text.contains("/") else { return text }
        var relative = Substring(text)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        return (folder.hasSuffix("/") ? folder : folder + "/") + relative
    }
}
