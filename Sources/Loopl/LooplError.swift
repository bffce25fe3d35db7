/// An error from Loopl: a stable ``Code`` that programs can match, and a sentence that a person can act on.
public struct LooplError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier for a kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The model file does not exist or cannot be read.
        public static let modelNotFound = Code(rawValue: "model_not_found")
        /// The model file exists but is not a model the runtime can load.
        public static let invalidModel = Code(rawValue: "invalid_model")
        /// The prompt plus the requested tokens does not fit in the context.
        public static let contextOverflow = Code(rawValue: "context_overflow")
        /// A request's options or arguments are not valid.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// Text that should be JSON is not.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// A backend process could not start, or stopped.
        public static let processFailed = Code(rawValue: "process_failed")
        /// A peer (a worker, a server) broke its protocol.
        public static let protocolViolation = Code(rawValue: "protocol_violation")
        /// A server answered with an HTTP error.
        public static let httpError = Code(rawValue: "http_error")
        /// A server refused the request's credentials (HTTP 401 or 403).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// Nothing answered where a server was expected.
        public static let connectionFailed = Code(rawValue: "connection_failed")
        /// The model or the runtime failed while generating.
        public static let generationFailed = Code(rawValue: "generation_failed")
        /// A chat template failed to parse or render.
        public static let templateError = Code(rawValue: "template_error")
        /// A configuration file or value is wrong.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// The operation was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The model was used after `close()`.
        public static let closed = Code(rawValue: "closed")
    }

    public let code: Code
    /// What happened and what to do about it, in one or two sentences.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
