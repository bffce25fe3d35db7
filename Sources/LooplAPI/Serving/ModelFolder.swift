import Foundation
import Loopl

/// A folder of GGUF files that `loopl serve` serves as models: every `.gguf` directly in it
/// (subfolders are not read), named by its file's stem; a split model by its first shard, named
/// without `-00001-of-0000N`. A file that cannot be read as GGUF is listed with the reason.
package struct ModelFolder: Sendable {
    /// One model of the folder.
    package struct Entry: Sendable, Hashable {
        package let name: String
        package let path: String
        /// Why the file cannot be served (not GGUF, truncated, unreadable); nil when it reads.
        package let problem: String?
        /// The file's size and time of change, which tell a changed file.
        let stamp: String
    }

    package let path: String

    package init(path: String) { self.path = path }

    /// The models in the folder now, in the order of their names; a folder that cannot be read
    /// has none. The header of a file unchanged since `previous` is not read again.
    package func scan(reusing previous: [Entry] = []) -> [Entry] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return files.sorted().compactMap { file in
            guard let name = Self.modelName(of: file) else { return nil }
            let full = path + "/" + file
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            let attributes = try? FileManager.default.attributesOfItem(atPath: full)
            let stamp = "\((attributes?[.size] as? NSNumber)?.intValue ?? -1):\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
            if let known = previous.first(where: { $0.path == full && $0.stamp == stamp }) { return known }
            return Entry(name: name, path: full, problem: Self.problem(of: full), stamp: stamp)
        }
    }

    /// The model name of the file `file`: its stem for a `.gguf` file, without the
    /// `-00001-of-0000N` of a split model's first shard; nil for another file or a later shard.
    static func modelName(of file: String) -> String? {
        guard file.lowercased().hasSuffix(".gguf"), !file.hasPrefix(".") else { return nil }
        let stem = String(file.dropLast(5))
        guard let split = stem.firstMatch(of: /-(\d{5})-of-(\d{5})$/) else { return stem }
        return split.output.1 == "00001" ? String(stem[..<split.range.lowerBound]) : nil
    }

    /// Why the file at `path` cannot be served, as a sentence; nil when its GGUF header reads.
    static func problem(of path: String) -> String? {
        do {
            _ = try GGUFMetadata(contentsOf: path)
            return nil
        } catch {
            return (error as? LooplError)?.message ?? "\(error)"
        }
    }
}
