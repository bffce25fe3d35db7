/// Why a template did not parse or render: a sentence for the user, naming the template line.
public struct JinjaError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    /// True for `raise_exception`, whose message is the template's own, unchanged.
    public let raised: Bool

    public init(_ message: String, raised: Bool = false) {
        self.message = message
        self.raised = raised
    }

    public var description: String { message }
}
