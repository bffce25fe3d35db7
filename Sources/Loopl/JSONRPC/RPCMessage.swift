/// A JSON-RPC error object: `{"code", "message", "data"}`.
package struct RPCError: Error, Sendable, Hashable {
    package var code: Int
    package var message: String
    package var data: JSONValue?

    package init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The JSON object.
    package var jsonValue: JSONValue {
        var object: JSONObject = ["code": .integer(code), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    /// The standard JSON-RPC 2.0 error codes.
    package static let parseError = -32700
    package static let invalidRequest = -32600
    package static let methodNotFound = -32601
    package static let invalidParams = -32602
    package static let internalError = -32603
}

/// One JSON-RPC 2.0 message.
package enum RPCMessage: Sendable, Hashable {
    case request(id: JSONValue, method: String, params: JSONValue)
    case notification(method: String, params: JSONValue)
    case response(id: JSONValue, result: Result<JSONValue, RPCError>)

    /// Reads a parsed line; fails with the reason when it is JSON but not a JSON-RPC 2.0 message.
    package static func read(_ value: JSONValue) -> Result<RPCMessage, NotJSONRPC> {
        guard let object = value.objectValue else { return .failure(NotJSONRPC(reason: "it is not a JSON object")) }
        guard object["jsonrpc"] == "2.0" else { return .failure(NotJSONRPC(reason: "it has no \"jsonrpc\": \"2.0\"")) }
        if let method = object["method"] {
            guard let name = method.stringValue else { return .failure(NotJSONRPC(reason: "its method is not a string")) }
            let params = object["params"] ?? .null
            switch params {
            case .object, .array, .null: break
            default: return .failure(NotJSONRPC(reason: "its params are neither an object nor an array"))
            }
            guard let id = object["id"] else { return .success(.notification(method: name, params: params)) }
            guard Self.isValidId(id) else { return .failure(NotJSONRPC(reason: "its id is neither a number nor a string")) }
            return .success(.request(id: id, method: name, params: params))
        }
        guard let id = object["id"], Self.isValidId(id) || id == .null else {
            return .failure(NotJSONRPC(reason: "it has neither a method nor a valid id"))
        }
        switch (object["result"], object["error"]) {
        case (let result?, nil):
            return .success(.response(id: id, result: .success(result)))
        case (nil, let error?):
            guard let code = error["code"]?.intValue, let message = error["message"]?.stringValue else {
                return .failure(NotJSONRPC(reason: "its error has no integer code and string message"))
            }
            return .success(.response(id: id, result: .failure(RPCError(code: code, message: message, data: error["data"]))))
        default:
            return .failure(NotJSONRPC(reason: "a response needs exactly one of result and error"))
        }
    }

    private static func isValidId(_ id: JSONValue) -> Bool {
        switch id {
        case .integer, .string: true
        default: false
        }
    }

    /// The JSON object.
    package var jsonValue: JSONValue {
        switch self {
        case .request(let id, let method, let params):
            return ["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]
        case .notification(let method, let params):
            return ["jsonrpc": "2.0", "method": .string(method), "params": params]
        case .response(let id, .success(let result)):
            return ["jsonrpc": "2.0", "id": id, "result": result]
        case .response(let id, .failure(let error)):
            return ["jsonrpc": "2.0", "id": id, "error": error.jsonValue]
        }
    }

    /// The message as one line of the wire, newline included.
    package var line: [UInt8] { Array((jsonValue.jsonText() + "\n").utf8) }
}

/// Why a JSON value is not a JSON-RPC 2.0 message.
package struct NotJSONRPC: Error, Sendable {
    package let reason: String
}
