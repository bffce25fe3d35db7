import Loopl

/// The constants of Loopl's stdio protocol (docs/stdio-protocol.md).
public enum StdioProtocol {
    /// The protocol version this build speaks.
    public static let version = 1
    /// The longest line either side accepts, newline excluded: 16 MiB.
    package static let maxLineBytes = 16 * 1024 * 1024

    /// JSON-RPC error codes used by the protocol.
    package enum ErrorCode {
        package static let parseError = -32700
        package static let invalidRequest = -32600
        package static let methodNotFound = -32601
        package static let invalidParams = -32602
        package static let internalError = -32603
        /// A Loopl error; `data.looplCode` names its ``LooplError/Code``.
        package static let looplError = -32000
        /// The request was cancelled (as in LSP).
        package static let requestCancelled = -32800
    }
}


