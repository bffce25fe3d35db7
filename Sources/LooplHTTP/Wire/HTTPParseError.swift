/// Why a head or request could not be read: the status to answer and a sentence saying what was wrong.
package struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status of the answer (400, 411, 413, 431, 505, ...).
    package let status: Int
    /// What was wrong, in words the client's author can act on.
    package let message: String

    /// An error answered with `status`.
    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The status and the message.
    package var description: String { "\(status): \(message)" }
}
