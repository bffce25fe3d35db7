import Loopl

extension RPCError {
    /// The error a worker sends for `error`: a LooplError keeps its code in `data.looplCode`,
    /// and `data.engineLoss` is true when the worker's own engine was lost mid-turn.
    package init(_ error: any Error) {
        if let error = error as? RPCError {
            self = error
        } else if let error = error as? LooplError {
            var data: JSONObject = ["looplCode": .string(error.code.rawValue)]
            if error.isEngineLoss { data["engineLoss"] = true }
            self.init(code: StdioProtocol.ErrorCode.looplError, message: error.message, data: .object(data))
        } else {
            self.init(code: StdioProtocol.ErrorCode.internalError, message: "\(error)")
        }
    }

    /// The LooplError a host raises for this error: the worker's code when it named one.
    package var looplError: LooplError {
        if code == StdioProtocol.ErrorCode.requestCancelled { return LooplError(.cancelled, message) }
        if let name = data?["looplCode"]?.stringValue {
            // A code this host does not know (a newer worker's) keeps the worker's sentence.
            return LooplError(LooplError.Code(rawValue: name) ?? .generationFailed, message,
                              engineLoss: data?["engineLoss"]?.boolValue == true ? .restarting : nil)
        }
        return LooplError(.generationFailed, "The worker failed (JSON-RPC error \(code)): \(message)")
    }
}
