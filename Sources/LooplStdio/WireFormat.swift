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
    /// The version agreed on: 1, 2 or 3.
    public var protocolVersion: Int
    public var name: String
    public var version: String
    public var nativeToolCalls: Bool
    /// The ToolCallParser family of its text, when its calls are not native (nil reads as `auto`).
    public var toolCallFormat: ToolCallFormat?
    public var cancellation: Bool
    /// Whether it sends the model's thinking as `reasoning` events and honours the reasoning
    /// options (version 2; false in version 1).
    public var reasoning: Bool
    /// How many `generate` requests it serves at once (version 2; 1 in version 1).
    public var concurrentRequests: Int
    /// Whether `generate` takes a raw `prompt` instead of `messages` (version 2; false in version 1).
    public var rawPrompt: Bool
    /// Whether it answers `embed` (version 3; false before).
    public var embeddings: Bool
    public var contextMax: Int

    public init(protocolVersion: Int = StdioProtocol.version, name: String, version: String, nativeToolCalls: Bool,
                toolCallFormat: ToolCallFormat?, cancellation: Bool, reasoning: Bool = false, concurrentRequests: Int = 1,
                rawPrompt: Bool = false, embeddings: Bool = false, contextMax: Int) {
        self.protocolVersion = protocolVersion
        self.name = name
        self.version = version
        self.nativeToolCalls = nativeToolCalls
        self.toolCallFormat = toolCallFormat
        self.cancellation = cancellation
        self.reasoning = protocolVersion >= 2 && reasoning
        self.concurrentRequests = protocolVersion >= 2 ? max(concurrentRequests, 1) : 1
        self.rawPrompt = protocolVersion >= 2 && rawPrompt
        self.embeddings = protocolVersion >= 3 && embeddings
        self.contextMax = contextMax
    }

    /// The markup a host lifts from this worker's text: nil for a worker that sends its calls
    /// as events (`nativeToolCalls`).
    public var markup: ToolCallFormat? {
        nativeToolCalls ? nil : toolCallFormat ?? .auto
    }

    /// The `initialize` result; version 2's capabilities only in version 2.
    package var wireValue: JSONValue {
        var capabilities: JSONObject = ["nativeToolCalls": .bool(nativeToolCalls),
                                        "toolCallFormat": toolCallFormat.map { .string($0.rawValue) } ?? .null,
                                        "cancellation": .bool(cancellation)]
        if protocolVersion >= 2 {
            capabilities["reasoning"] = .bool(reasoning)
            capabilities["concurrentRequests"] = .integer(concurrentRequests)
            if rawPrompt { capabilities["rawPrompt"] = true }
        }
        if protocolVersion >= 3, embeddings { capabilities["embeddings"] = true }
        return ["protocolVersion": .integer(protocolVersion), "name": .string(name), "version": .string(version),
                "capabilities": .object(capabilities), "contextMax": .integer(contextMax)]
    }

    /// Reads the `initialize` result of a worker that was offered version `offered`; throws
    /// `protocolViolation` naming what is missing or wrong.
    package init(wireValue value: JSONValue, offered: Int = StdioProtocol.version) throws {
        func fail(_ what: String) -> LooplError {
            LooplError(.protocolViolation, "The worker's initialize result \(what): \(Mailbox.excerpt(value.jsonText())).")
        }
        guard let version = value["protocolVersion"]?.intValue else { throw fail("has no integer protocolVersion") }
        guard (1...offered).contains(version) else {
            throw LooplError(.protocolViolation, "The worker answered protocol version \(version) to an offer of version \(offered); this loopl speaks versions 1 to \(StdioProtocol.version).")
        }
        guard let name = value["name"]?.stringValue else { throw fail("has no string name") }
        guard let capabilities = value["capabilities"], capabilities.objectValue != nil else { throw fail("has no capabilities object") }
        guard let native = capabilities["nativeToolCalls"]?.boolValue else { throw fail("has no boolean capabilities.nativeToolCalls") }
        guard let contextMax = value["contextMax"]?.intValue, contextMax > 0 else { throw fail("has no positive integer contextMax") }
        // A text generator that names no family (null or absent) is read as `auto`; a name that is
        // no family is an error.
        let format: ToolCallFormat?
        do { format = try capabilities["toolCallFormat"]?.stringValue.map(ToolCallFormat.named) } catch {
            throw LooplError(.protocolViolation, "The worker's initialize result has capabilities.toolCallFormat \(error.message)")
        }
        var reasoning = false
        var concurrent = 1
        var rawPrompt = false
        var embeddings = false
        if version >= 3, let flag = capabilities["embeddings"], !flag.isNull {
            guard let flag = flag.boolValue else { throw fail("has a capabilities.embeddings that is not a boolean") }
            embeddings = flag
        }
        if version >= 2 {
            if let flag = capabilities["rawPrompt"], !flag.isNull {
                guard let flag = flag.boolValue else { throw fail("has a capabilities.rawPrompt that is not a boolean") }
                rawPrompt = flag
            }
            if let flag = capabilities["reasoning"], !flag.isNull {
                guard let flag = flag.boolValue else { throw fail("has a capabilities.reasoning that is not a boolean") }
                reasoning = flag
            }
            if let count = capabilities["concurrentRequests"], !count.isNull {
                guard let count = count.intValue, count >= 1 else { throw fail("has a capabilities.concurrentRequests that is not an integer >= 1") }
                concurrent = count
            }
        }
        self.init(protocolVersion: version, name: name, version: value["version"]?.stringValue ?? "",
                  nativeToolCalls: native, toolCallFormat: native ? format : format ?? .auto,
                  cancellation: capabilities["cancellation"]?.boolValue ?? false, reasoning: reasoning,
                  concurrentRequests: concurrent, rawPrompt: rawPrompt, embeddings: embeddings, contextMax: contextMax)
    }
}
