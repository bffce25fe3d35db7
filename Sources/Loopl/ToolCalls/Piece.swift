/// What a block of markup stands for, before declared tool names are checked.
enum Piece: Sendable, Hashable {
    case call(name: String, arguments: JSONObject, id: String?)
    /// A call whose values were written as bare text (`raw`, by parameter) and typed by guessing;
    /// a declared string parameter gets its text back.
    case looseCall(name: String, arguments: JSONObject, raw: [String: String])
    /// Visible text written inside markup (the generic format's `{"response": "..."}`).
    case text(String)
    /// Thinking starts here and runs to the given marker.
    case openReasoning([UInt8])
}

/// Reads one block of markup at the cursor (which sits on the block's first byte) and returns what
/// it stands for; throws ``ScanStop`` when the block is cut off or is not this markup.
typealias BlockReader = @Sendable (inout ByteCursor) throws -> [Piece]

/// A string that starts markup in running text, and what to do with it.
struct Marker: Sendable {
    enum Kind: Sendable {
        /// A block that a reader turns into pieces.
        case block(BlockReader)
        /// Thinking that runs to `close`.
        case reasoning(close: [UInt8])
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
    static func reasoning(_ open: String, _ close: String) -> Marker { Marker(open, .reasoning(close: Array(close.utf8))) }
    static func drop(_ literal: String) -> Marker { Marker(literal, .drop) }
}

/// Literals that several readers share.
enum Lit {
    static let fence = [UInt8](literal: "```")
    static let trueWord = [UInt8](literal: "true")
    static let falseWord = [UInt8](literal: "false")
    static let nullWord = [UInt8](literal: "null")
    static let newline = [UInt8](literal: "\n")
    static let gt = [UInt8](literal: ">")
    static let quote = [UInt8](literal: "\"")
}
