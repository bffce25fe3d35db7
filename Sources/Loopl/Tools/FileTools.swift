import Foundation

/// Lists a folder inside the root (``FileRoot``): names, with `/` after folders and after links
/// to folders inside the root.
package struct ListFilesTool: Tool {
    package static let name = "list_files"
    package var name: String { Self.name }
    package let description = "List the files and folders in a folder (a path relative to the working folder; '.' for itself)."
    package let parameters: JSONValue = [
        "type": "object",
        "properties": ["path": ["type": "string", "description": "The folder, relative to the working folder.",
                                "minLength": 1, "maxLength": 1024]],
    ]
    package let root: FileRoot
    /// The most names one listing gives.
    package static let limit = 4096

    package init(root: FileRoot) { self.root = root }

    package func call(_ arguments: JSONObject) async throws -> String {
        let relative = arguments["path"]?.stringValue ?? "."
        let fd = try root.open(relative, as: .folder)
        defer { close(fd) }
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw LooplError(.io, "Cannot list \(relative): \(String(cString: strerror(errno))).")
        }
        defer { closedir(stream) }
        var names: [String] = []
        var cut = false
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            guard names.count < Self.limit else {
                cut = true
                break
            }
            names.append(isFolder(name, in: fd, under: relative) ? name + "/" : name)
        }
        let listing = names.sorted().joined(separator: "\n")
        return cut ? listing + "\n[cut at \(Self.limit) names]" : listing
    }

    /// Whether `name` in the folder `fd` is a folder, or a link to a folder inside the root.
    private func isFolder(_ name: String, in fd: Int32, under relative: String) -> Bool {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
        if info.st_mode & S_IFMT == S_IFDIR { return true }
        guard info.st_mode & S_IFMT == S_IFLNK, let target = try? root.open(relative + "/" + name, as: .folder) else { return false }
        close(target)
        return true
    }
}

/// Reads a text file inside the root (``FileRoot``), the first 64 KiB of it.
package struct ReadFileTool: Tool {
    package static let name = "read_file"
    package var name: String { Self.name }
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
        let fd = try root.open(relative, as: .file)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: Self.limit + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { Glibc.read(fd, $0 + count, buffer.count - count) } ?? -1
            }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { throw LooplError(.io, "Cannot read \(relative): \(String(cString: strerror(errno))).") }
            if read == 0 { break }
            count += read
        }
        let text = String(decoding: bytes.prefix(min(count, Self.limit)), as: UTF8.self)
        return count > Self.limit ? text + "\n[cut at \(Self.limit) bytes]" : text
    }
}
