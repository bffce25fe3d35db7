import Foundation
import Loopl

/// The files of a prompt cache folder, for `loopl cache` and for keeping the cache in its bound.
package enum PromptCacheListing {
    /// One saved prompt state.
    package struct Entry {
        package let name: String
        package let size: Int
        /// When it was last saved or loaded.
        package let used: Date
        /// How many prompt tokens it holds; nil when its header cannot be read.
        package let tokens: Int?
    }

    /// The saved states in `directory`, with their token counts when `readingHeaders`.
    package static func entries(in directory: String, readingHeaders: Bool = false) -> [Entry] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".bin") }
        return names.compactMap { name in
            let path = directory + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            let tokens = readingHeaders ? (try? PromptCacheFile.header(at: path))?.tokens.count : nil
            return Entry(name: name, size: attributes[.size] as? Int ?? 0,
                         used: attributes[.modificationDate] as? Date ?? .distantPast, tokens: tokens)
        }
    }

    /// Removes every saved state in `directory` (and half-written ones); returns how many.
    @discardableResult
    package static func clear(_ directory: String) -> Int {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".bin") || $0.hasSuffix(".tmp") }
        return names.filter { (try? FileManager.default.removeItem(atPath: directory + "/" + $0)) != nil && $0.hasSuffix(".bin") }.count
    }
}
