/// An error from Loopl: a stable ``Code`` that programs can match, a sentence that a person can act
/// on, and the error underneath it, when there is one.
public struct LooplError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier for a kind of failure: one of a closed set, each with a fixed `rawValue`
    /// that the stdio protocol and `--json` output carry.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, as in `model_not_found`.
        public let rawValue: String
        /// What this kind of failure means, in a few words.
        public let summary: String

        private init(_ rawValue: String, _ summary: String) {
            self.rawValue = rawValue
            self.summary = summary
        }

        /// The code named `rawValue`; nil for a name that is not one of ``all``.
        public init?(rawValue: String) {
            guard let code = Code.all.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = code
        }

        public var description: String { rawValue }
        public static func == (a: Code, b: Code) -> Bool { a.rawValue == b.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// The model file does not exist or cannot be read.
        public static let modelNotFound = Code("model_not_found", "the model file does not exist or cannot be read")
        /// The model file exists but is not a model the runtime can load.
        public static let invalidModel = Code("invalid_model", "the file is not a model the runtime can load")
        /// The prompt plus the requested tokens does not fit in the context.
        public static let contextOverflow = Code("context_overflow", "the prompt and the requested tokens do not fit in the context")
        /// A request's options or arguments are not valid.
        public static let invalidRequest = Code("invalid_request", "a request's options or arguments are not valid")
        /// Text that should be JSON is not.
        public static let invalidJSON = Code("invalid_json", "text that should be JSON is not")
        /// A backend process could not start, or stopped.
        public static let processFailed = Code("process_failed", "a backend process could not start, or stopped")
        /// A peer (a worker, a server) broke its protocol.
        public static let protocolViolation = Code("protocol_violation", "a worker or server broke its protocol")
        /// A server answered with an HTTP error.
        public static let httpError = Code("http_error", "a server answered with an HTTP error")
        /// A server refused the request's credentials (HTTP 401 or 403).
        public static let unauthorized = Code("unauthorized", "a server refused the credentials")
        /// Nothing answered where a server was expected.
        public static let connectionFailed = Code("connection_failed", "nothing answered where a server was expected")
        /// A peer stayed silent longer than its timeout allows.
        public static let timedOut = Code("timed_out", "a worker or server stayed silent past its timeout")
        /// The model or the runtime failed while generating.
        public static let generationFailed = Code("generation_failed", "the model or the runtime failed while generating")
        /// A chat template failed to parse or render.
        public static let templateError = Code("template_error", "a chat template failed to parse or render")
        /// A configuration file or value is wrong.
        public static let invalidConfiguration = Code("invalid_configuration", "a configuration file or value is wrong")
        /// A session file cannot be read, parsed or written.
        public static let sessionFile = Code("session_file", "a session file cannot be read, parsed or written")
        /// Reading or writing a file or a pipe failed.
        public static let io = Code("io", "reading or writing a file or a pipe failed")
        /// A model's queue of waiting requests is full; try again later.
        public static let busy = Code("busy", "the model is serving as many requests as its queue holds")
        /// An agent was asked to run a turn while it is running one.
        public static let agentBusy = Code("agent_busy", "the agent is already running a turn of its conversation")
        /// The operation was cancelled.
        public static let cancelled = Code("cancelled", "the operation was cancelled")
        /// The model was used after `close()`.
        public static let closed = Code("closed", "the model was used after close()")

        /// Every code, in the order above.
        public static let all: [Code] = [
            .modelNotFound, .invalidModel, .contextOverflow, .invalidRequest, .invalidJSON, .processFailed,
            .protocolViolation, .httpError, .unauthorized, .connectionFailed, .timedOut, .generationFailed,
            .templateError, .invalidConfiguration, .sessionFile, .io, .busy, .agentBusy, .cancelled, .closed,
        ]
    }

    /// How the engine behind a model was lost, when that is what this error means.
    public enum EngineLoss: Sendable, Hashable {
        /// The engine stopped before the turn ended: its process exited or was killed, its
        /// connection broke, or its stream stalled past the idle timeout (it was then stopped).
        /// The backend starts a new one for the next request, so the turn can be tried again.
        case restarting
        /// The engine was lost again on a retried turn, and the route moved to its next backend,
        /// which takes the next try.
        case fellBack
    }

    public let code: Code
    /// What happened and what to do about it, in one or two sentences.
    public let message: String
    /// The error underneath this one (a system call's, a decoder's), if any.
    public let underlying: (any Error)?
    /// Set by a backend when its engine was lost mid-turn (an ``Agent`` then retries the turn);
    /// nil for an error of a live engine (a context overflow, an invalid request), which a retry
    /// would only repeat.
    public let engineLoss: EngineLoss?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil, engineLoss: EngineLoss? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.engineLoss = engineLoss
    }

    /// True when the engine behind the model was lost mid-turn (see ``engineLoss``).
    public var isEngineLoss: Bool { engineLoss != nil }

    /// This error, marked as the loss `loss` of the engine.
    public func markingEngineLoss(_ loss: EngineLoss = .restarting) -> LooplError {
        LooplError(code, message, underlying: underlying, engineLoss: loss)
    }

    /// `error` as a ``LooplError``: itself when it is one, ``Code/cancelled`` for a
    /// `CancellationError`, else `code` with `message` and the error underneath.
    public static func wrapping(_ error: any Error, as code: Code, _ message: @autoclosure () -> String) -> LooplError {
        if let error = error as? LooplError { return error }
        if error is CancellationError { return LooplError(.cancelled, "The operation was cancelled.") }
        return LooplError(code, message(), underlying: error)
    }

    public var description: String { message }

    public static func == (a: LooplError, b: LooplError) -> Bool { a.code == b.code && a.message == b.message }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}

extension LooplError {
    /// An `invalidJSON` error with the parser's sentence.
    public init(_ error: JSONParseError) {
        self.init(.invalidJSON, error.message)
    }
}
