import Loopl

// The shapes of the protocol's params and results, in both directions, through JSONValue so
// numbers keep their kind. `options` and `metrics` are GenerationOptions' and Metrics' Codable
// forms (JSONValue(encoding:) and JSONValue.decode(_:)).

extension ModelEvent {
    /// The params of an `event` notification for request `id`.
    package func wireParams(id: JSONValue) throws(LooplError) -> JSONValue {
        switch self {
        case .text(let text):
            return ["id": id, "type": "text", "text": .string(text)]
        case .reasoning(let text):
            return ["id": id, "type": "reasoning", "text": .string(text)]
        case .toolCall(let call):
            return ["id": id, "type": "toolCall",
                    "toolCall": ["id": .string(call.id), "name": .string(call.name), "arguments": .object(call.arguments)]]
        case .metrics(let metrics):
            return ["id": id, "type": "metrics", "metrics": try JSONValue(encoding: metrics)]
        }
    }

    /// Reads the params of an `event` notification (its `id` is checked by the caller).
    package init(wireParams params: JSONValue) throws {
        switch params["type"]?.stringValue {
        case "text":
            guard let text = params["text"]?.stringValue else { throw LooplError(.protocolViolation, "A text event has no string 'text'.") }
            self = .text(text)
        case "reasoning":
            guard let text = params["text"]?.stringValue else { throw LooplError(.protocolViolation, "A reasoning event has no string 'text'.") }
            self = .reasoning(text)
        case "toolCall":
            guard let value = params["toolCall"], value["name"]?.stringValue != nil else {
                throw LooplError(.protocolViolation, "A toolCall event has no 'toolCall' with a name.")
            }
            do { self = .toolCall(try ToolCall(templateValue: value)) } catch let error as LooplError {
                throw LooplError(.protocolViolation, "A toolCall event is malformed: \(error.message)")
            }
        case "metrics":
            do { self = .metrics(try (params["metrics"] ?? .null).decode(Metrics.self)) } catch {
                throw LooplError(.protocolViolation, "A metrics event is malformed: \(error.message)")
            }
        default:
            throw LooplError(.protocolViolation, "An event has an unknown type: \(params.jsonText()).")
        }
    }
}

/// What a worker said about itself in its `initialize` result.
public struct WorkerInfo: Sendable, Hashable {
    public var protocolVersion: Int
    public var name: String
    public var version: String
    public var nativeToolCalls: Bool
    /// The ToolCallParser family of its text, when its calls are not native.
    public var toolCallFormat: ToolCallFormat?
    public var cancellation: Bool
    public var contextMax: Int

    public init(protocolVersion: Int = StdioProtocol.version, name: String, version: String, nativeToolCalls: Bool,
                toolCallFormat: ToolCallFormat?, cancellation: Bool, contextMax: Int) {
        self.protocolVersion = protocolVersion
        self.name = name
        self.version = version
        self.nativeToolCalls = nativeToolCalls
        self.toolCallFormat = toolCallFormat
        self.cancellation = cancellation
        self.contextMax = contextMax
    }

    /// The tool-call style a host declares for this worker.
    public var toolCallStyle: ToolCallStyle {
        nativeToolCalls ? .native : .text(toolCallFormat ?? .auto)
    }

    /// The `initialize` result.
    package var wireValue: JSONValue {
        ["protocolVersion": .integer(protocolVersion), "name": .string(name), "version": .string(version),
         "capabilities": ["nativeToolCalls": .bool(nativeToolCalls),
                          "toolCallFormat": toolCallFormat.map { .string($0.rawValue) } ?? .null,
                          "cancellation": .bool(cancellation)],
         "contextMax": .integer(contextMax)]
    }

    /// Reads an `initialize` result; throws `protocolViolation` naming what is missing.
    package init(wireValue value: JSONValue) throws {
        func fail(_ what: String) -> LooplError {
            LooplError(.protocolViolation, "The worker's initialize result \(what): \(Mailbox.excerpt(value.jsonText())).")
        }
        guard let version = value["protocolVersion"]?.intValue else { throw fail("has no integer protocolVersion") }
        guard version == StdioProtocol.version else {
            throw LooplError(.protocolViolation, "The worker speaks protocol version \(version); this loopl speaks version \(StdioProtocol.version).")
        }
        guard let name = value["name"]?.stringValue else { throw fail("has no string name") }
        guard let capabilities = value["capabilities"], capabilities.objectValue != nil else { throw fail("has no capabilities object") }
        guard let native = capabilities["nativeToolCalls"]?.boolValue else { throw fail("has no boolean capabilities.nativeToolCalls") }
        guard let contextMax = value["contextMax"]?.intValue, contextMax > 0 else { throw fail("has no positive integer contextMax") }
        let format = capabilities["toolCallFormat"]?.stringValue.map(ToolCallFormat.init(rawValue:))
        if !native, format == nil { throw fail("declares no native tool calls and no toolCallFormat") }
        self.init(protocolVersion: version, name: name, version: value["version"]?.stringValue ?? "",
                  nativeToolCalls: native, toolCallFormat: format,
                  cancellation: capabilities["cancellation"]?.boolValue ?? false, contextMax: contextMax)
    }
}
