/// A set of built-in tools enabled by one name: `calc` (the calculator), `time` (the current
/// time), `files` (listing and reading files under a root). `--tools`, the config's `tools`, the
/// serve API and its page, help texts and approval hints all read these sets; nothing else pairs a
/// set's name with its tools.
package struct BuiltInToolSet: Sendable {
    /// The name that enables the set, such as `files`.
    package let name: String
    /// Its tools' names as the model sees them, such as `list_files` and `read_file`.
    package let toolNames: [String]
    private let make: @Sendable (_ root: String) throws -> [any Tool]

    package static let calc = BuiltInToolSet(name: "calc", toolNames: [CalculatorTool.name]) { _ in [CalculatorTool()] }
    package static let time = BuiltInToolSet(name: "time", toolNames: [DateTimeTool.name]) { _ in [DateTimeTool()] }
    package static let files = BuiltInToolSet(name: "files", toolNames: [ListFilesTool.name, ReadFileTool.name]) { root in
        let fileRoot = try FileRoot(root)
        return [ListFilesTool(root: fileRoot), ReadFileTool(root: fileRoot)]
    }

    /// Every set, in the order help lists them.
    package static let all = [calc, time, files]
    /// The sets' names: `calc`, `time`, `files`.
    package static var names: [String] { all.map(\.name) }

    /// The set named `name`, if it is one.
    package static func named(_ name: String) -> BuiltInToolSet? { all.first { $0.name == name } }

    /// The set that holds the tool the model knows as `toolName`, if any does.
    package static func holding(_ toolName: String) -> BuiltInToolSet? { all.first { $0.toolNames.contains(toolName) } }

    /// The sets' names for a sentence: "calc, time, files", or with `last` "calc, time or files".
    package static func listed(last: String = ", ") -> String {
        names.dropLast().joined(separator: ", ") + last + (names.last ?? "")
    }

    /// The set's tools; the files tools read under `root` (a folder).
    package func tools(root: String) throws -> [any Tool] { try make(root) }
}
