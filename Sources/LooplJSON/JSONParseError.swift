/// Why text is not JSON: the byte where reading stopped and what was found there.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offset, in bytes of UTF-8, where the text stops being JSON.
    public let offset: Int
    /// What is wrong there ("unexpected end of input", "expected ':'", ...).
    public let reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// A sentence naming the offset and the reason.
    public var message: String { "Invalid JSON at byte \(offset): \(reason)." }

    /// The message.
    public var description: String { message }
}
