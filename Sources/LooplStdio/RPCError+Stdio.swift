import Loopl

extension RPCError {
    /// The error a worker sends for `error`: a LooplError keeps its code in `data.looplCode`.
    package init(_ error: any Error) {
        if let error = error as? RPCError {
            self = error
        } else if let error = error as? LooplError {
            self.init(code: StdioProtocol.ErrorCode.looplError, message: error.message,
                      data: ["looplCode": .string(error.code.rawValue)])
        } else {
            self.init(code: StdioProtocol.ErrorCode.internalError, message: "\(error)")
        }
    }

    /// The LooplError a host raises for this error: the worker's code when it named one.
    package var looplError: LooplError {
        if code == StdioProtocol.ErrorCode.requestCancelled { return LooplError(.cancelled, message) }
        if let name = data?["looplCode"]?.stringValue {
            // A code this host does not know (a newer worker's) keeps the worker's sentence.
            return LooplError(LooplError.Code(rawValue: name) ?? .generationFailed, message)
        }
        return LooplError(.generationFailed, "The worker failed (JSON-RPC error \(code)): \(message)")
    }
}
