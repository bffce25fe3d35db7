import Foundation

/// A route's path as the docs write it: literal segments, `{name}` for one segment and `{name...}`
/// (last only) for the rest of the path. A pattern that starts with `/v1/` answers without `/v1`
/// too, as every path does (`/models` is `/v1/models`).
struct PathPattern: Sendable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        /// The rest of the path, one segment or more, slashes kept.
        case rest(String)
    }

    /// The pattern as written, for help and the docs: `/v1/models/{id}`.
    let description: String
    /// Its segments, without a leading `v1`.
    let segments: [Segment]

    init(_ text: String) {
        description = text.replacingOccurrences(of: "...}", with: "}")
        segments = Self.split(Self.unversioned(text)).map { word in
            guard word.hasPrefix("{"), word.hasSuffix("}") else { return .literal(word) }
            let name = word.dropFirst().dropLast()
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .parameter(String(name))
        }
    }

    /// The parameters of `path` (percent-decoded), or nil when it does not match.
    func match(_ path: String) -> [String: String]? {
        let words = Self.split(Self.unversioned(path))
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            guard index < words.count else { return nil }
            switch segment {
            case .literal(let word): guard words[index] == word else { return nil }
            case .parameter(let name): parameters[name] = words[index].removingPercentEncoding ?? ""
            case .rest(let name):
                parameters[name] = words[index...].joined(separator: "/").removingPercentEncoding ?? ""
                return parameters
            }
        }
        return words.count == segments.count ? parameters : nil
    }

    /// The first segment when it is literal: the family of paths the pattern belongs to (`api`, `messages`).
    var family: String? {
        guard case .literal(let word)? = segments.first, !word.isEmpty else { return nil }
        return word
    }

    /// The family of `path`: its first segment without `/v1`.
    static func family(of path: String) -> String? { split(unversioned(path)).first.flatMap { $0.isEmpty ? nil : $0 } }

    /// `path` without a leading `/v1`.
    static func unversioned(_ path: String) -> String { path.hasPrefix("/v1/") ? String(path.dropFirst(3)) : path }

    /// The segments after the leading slash: `/` is one empty segment, `/a/b` is `a` and `b`.
    private static func split(_ path: String) -> [String] {
        path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }
}
