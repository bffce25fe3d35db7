import Foundation

/// Resolves paths that a model gives against a root folder, refusing any way out of it:
/// absolute paths, `..`, and symbolic links that lead outside.
package struct FileRoot: Sendable, Hashable {
    /// The root, with symbolic links resolved.
    package let path: String

    package init(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LooplError(.invalidConfiguration, "The tools' root \(path) is not a folder.")
        }
        self.path = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// The real path of `relative` inside the root; throws `invalidRequest` for any escape.
    package func resolve(_ relative: String) throws -> String {
        let trimmed = relative.trimmingCharacters(in: .whitespaces)
        guard !trimmed.hasPrefix("/"), !trimmed.hasPrefix("~") else {
            throw LooplError(.invalidRequest, "Use a path relative to the root folder, not \(relative).")
        }
        let parts = trimmed.split(separator: "/")
        guard !parts.contains("..") else {
            throw LooplError(.invalidRequest, "Paths may not contain '..': \(relative).")
        }
        let joined = parts.isEmpty || trimmed == "." ? path : path + "/" + parts.filter { $0 != "." }.joined(separator: "/")
        let real = URL(fileURLWithPath: joined).resolvingSymlinksInPath().path
        guard real == path || real.hasPrefix(path + "/") else {
            throw LooplError(.invalidRequest, "\(relative) leads outside the root folder.")
        }
        return real
    }
}

/// Lists a folder inside the root.
package struct ListFilesTool: Tool {
    package let name = "list_files"
    package let description = "List the files and folders in a folder (a path relative to the working folder; '.' for itself)."
    package let parameters: JSONValue = [
        "type": "object",
        "properties": ["path": ["type": "string", "description": "The folder, relative to the working folder.",
                                "minLength": 1, "maxLength": 1024]],
    ]
    package let root: FileRoot

    package init(root: FileRoot) { self.root = root }

    package func call(_ arguments: JSONObject) async throws -> String {
        let folder = try root.resolve(arguments["path"]?.stringValue ?? ".")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        return names.map { name in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory)
            return isDirectory.boolValue ? name + "/" : name
        }.joined(separator: "\n")
    }
}

/// Reads a text file inside the root (the first 64 KiB).
package struct ReadFileTool: Tool {
    package let name = "read_file"
    package let description = "Read a text file (a path relative to the working folder)."
    package let parameters: JSONValue = [
        "type": "object",
        "properties": ["path": ["type": "string", "description": "The file, relative to the working folder.",
                                "minLength": 1, "maxLength": 1024]],
        "required": ["path"],
    ]
    package let root: FileRoot
    static let limit = 65536

    package init(root: FileRoot) { self.root = root }

    package func call(_ arguments: JSONObject) async throws -> String {
        guard let relative = arguments["path"]?.stringValue else {
            throw LooplError(.invalidRequest, "Give the file's path in 'path'.")
        }
        let file = try root.resolve(relative)
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw LooplError(.io, "Cannot read \(relative).")
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: Self.limit + 1) ?? Data()
        let text = String(decoding: data.prefix(Self.limit), as: UTF8.self)
        return data.count > Self.limit ? text + "\n[cut at \(Self.limit) bytes]" : text
    }
}
