/// What a block of markup stands for, before declared tool names are checked.
enum Piece: Sendable, Hashable {
    case call(name: String, arguments: JSONObject, id: String?)
    /// A call whose values were written as bare text (`raw`, by parameter) and typed by guessing;
    /// a declared string parameter gets its text back.
    case looseCall(name: String, arguments: JSONObject, raw: [String: String])
    /// A call to one of the model's own built-in tools (harmony's `python`, `browser.*`): a call
    /// when it is declared, else rejected with its markup removed.
    case builtinCall(name: String, arguments: JSONObject)
    /// Visible text written inside markup (the generic format's `{"response": "..."}`).
    case text(String)
    /// Thinking starts here and runs to the given marker.
    case openReasoning([UInt8])
    /// A call among others in one block that cannot be read (arguments that are no literal, a
    /// malformed id): it is dropped and reported, and the block's other calls stand.
    case malformedCall(name: String, why: String)
}

extension Piece {
    /// Whether the piece is a call of any kind (before declared names are checked).
    var isCall: Bool {
        switch self {
        case .call, .looseCall, .builtinCall: true
        case .text, .openReasoning, .malformedCall: false
        }
    }

    /// A block's pieces when at least one of its calls could be read; a block of malformed calls
    /// only is not a block.
    static func someReadable(_ pieces: [Piece]) throws -> [Piece] {
        guard pieces.contains(where: \.isCall) else { throw ScanStop.noMatch }
        return pieces
    }
}

/// Reads one block of markup at the cursor (which sits on the block's first byte) and returns what
/// it stands for; throws ``ScanStop`` when the block is cut off or is not this markup.
typealias BlockReader = @Sendable (inout ByteCursor) throws -> [Piece]

/// Literals that several readers share.
enum Lit {
    static let fence = [UInt8](literal: "```")
    static let trueWord = [UInt8](literal: "true")
    static let falseWord = [UInt8](literal: "false")
    static let nullWord = [UInt8](literal: "null")
    static let newline = [UInt8](literal: "\n")
    static let gt = [UInt8](literal: ">")
    static let quote = [UInt8](literal: "\"")
    /// JSON's object braces, named so that no brace sits unmatched in a line of code.
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
}
