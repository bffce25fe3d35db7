import LooplHTTP

/// The key a client must send to use the API, as `Authorization: Bearer KEY` (the scheme in any
/// case) or `x-api-key: KEY`.
///
/// Keys are compared in time that does not depend on where they differ, and the key never
/// appears in a description or a dump.
package struct APIKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let key: [UInt8]

    /// The key `key`; nil when it is empty or only spaces, which would guard nothing.
    package init?(_ key: String) {
        guard key.contains(where: { !$0.isWhitespace }) else { return nil }
        self.key = Array(key.utf8)
    }

    /// True when either header carries the key.
    package func accepts(authorization: String?, xAPIKey: String?) -> Bool {
        var accepted = false
        if let authorization, let token = Self.bearerToken(authorization) { accepted = matches(token) || accepted }
        if let xAPIKey { accepted = matches(Substring(xAPIKey).trimmingSpaces) || accepted }
        return accepted
    }

    /// The token of a `Bearer` credential; nil for another scheme.
    static func bearerToken(_ header: String) -> Substring? {
        let value = Substring(header).trimmingSpaces
        guard let space = value.firstIndex(where: { $0 == " " || $0 == "\t" }),
              value[..<space].lowercased() == "bearer" else { return nil }
        return value[space...].trimmingSpaces
    }

    /// Compares every byte of the key whatever the candidate holds, so the time taken tells nothing
    /// of how much of it was right.
    private func matches(_ candidate: Substring) -> Bool {
        let bytes = Array(candidate.utf8)
        var difference: UInt8 = bytes.count == key.count ? 0 : 1
        for index in key.indices {
            let byte = index < bytes.count ? bytes[index] : 0
            difference |= key[index] ^ byte
        }
        return difference == 0
    }

    /// "APIKey(redacted)".
    package var description: String { "APIKey(redacted)" }
    /// "APIKey(redacted)".
    package var debugDescription: String { description }
    /// A mirror without the key.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
