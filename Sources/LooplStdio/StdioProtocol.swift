import Loopl

/// The constants of Loopl's stdio protocol (docs/stdio-protocol.md).
public enum StdioProtocol {
    /// The highest protocol version this build speaks; it speaks every version from 1 up to it.
    public static let version = 3
    /// The longest line either side accepts, newline excluded: 16 MiB.
    package static let maxLineBytes = LineSplitter.defaultLimit

    /// JSON-RPC error codes used by the protocol.
    package enum ErrorCode {
        package static let parseError = RPCError.parseError
        package static let invalidRequest = RPCError.invalidRequest
        package static let methodNotFound = RPCError.methodNotFound
        package static let invalidParams = RPCError.invalidParams
        package static let internalError = RPCError.internalError
        /// A Loopl error; `data.looplCode` names its ``LooplError/Code``.
        package static let looplError = -32000
        /// The request was cancelled (as in LSP).
        package static let requestCancelled = -32800
    }
}
