/// A string that starts markup in running text, and what to do with it.
struct Marker: Sendable {
    enum Kind: Sendable {
        /// A block that a reader turns into pieces.
        case block(BlockReader)
        /// Thinking that runs to `close`; it opens only before visible text unless `anywhere`.
        case reasoning(close: [UInt8], anywhere: Bool)
        /// A bare closing marker of thinking: at the start of a turn whose prompt may have opened
        /// thinking, what comes before it is thinking; anywhere else it is removed.
        case reasoningEnd
        /// A control token that is removed.
        case drop
    }

    let literal: [UInt8]
    let kind: Kind

    init(_ literal: String, _ kind: Kind) {
        self.literal = Array(literal.utf8)
        self.kind = kind
    }

    static func block(_ literal: String, _ reader: @escaping BlockReader) -> Marker { Marker(literal, .block(reader)) }
    static func reasoning(_ open: String, _ close: String, anywhere: Bool = false) -> Marker {
        Marker(open, .reasoning(close: Array(close.utf8), anywhere: anywhere))
    }
    static func drop(_ literal: String) -> Marker { Marker(literal, .drop) }
    static func reasoningEnd(_ literal: String) -> Marker { Marker(literal, .reasoningEnd) }
}
