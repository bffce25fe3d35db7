import Foundation
import Loopl

// The shapes of the protocol's params and results, in both directions, through JSONValue so
// numbers keep their kind.

extension GenerationOptions {
    /// The `options` object of a `generate` request: GenerationOptions' Codable form (camelCase;
    /// absent optionals left out), so options added to the core type travel too.
    public var wireValue: JSONValue {
        if let data = try? JSONEncoder().encode(self), let value = try? JSONValue(parsing: Array(data)) { return value }
        return knownWireValue
    }

    /// The options this file knows, written by hand.
    var knownWireValue: JSONValue {
        var object: JSONObject = [:]
        if let maxTokens { object["maxTokens"] = .integer(maxTokens) }
        object["temperature"] = .double(temperature)
        object["topP"] = .double(topP)
        object["topK"] = .integer(topK)
        object["minP"] = .double(minP)
        object["repeatPenalty"] = .double(repeatPenalty)
        if let seed { object["seed"] = .integer(Int(seed)) }
        object["stop"] = .array(stop.map { .string($0) })
        object["toolChoice"] = .string(toolChoice.name)
        object["ignoreEndOfGeneration"] = .bool(ignoreEndOfGeneration)
        return .object(object)
    }

    /// Reads an `options` object: the known keys are checked (a missing key keeps its default, a
    /// key of the wrong type is an error naming it); the Codable form then fills in any others.
    public init(wireValue value: JSONValue) throws {
        let known = try GenerationOptions(knownWireValue: value)
        if value.objectValue != nil, let decoded = try? JSONDecoder().decode(GenerationOptions.self, from: Data(value.jsonText().utf8)) {
            self = decoded
        } else {
            self = known
        }
    }

    /// Reads the known keys of an `options` object; a missing key keeps its default, a key of the wrong type is an error.
    init(knownWireValue value: JSONValue) throws {
        self.init()
        guard let object = value.objectValue else {
            if value.isNull { return }
            throw LooplError(.invalidRequest, "The generation options must be an object.")
        }
        func number(_ key: String) throws -> Double? {
            guard let member = object[key], !member.isNull else { return nil }
            guard let number = member.doubleValue else { throw LooplError(.invalidRequest, "Option '\(key)' must be a number.") }
            return number
        }
        func integer(_ key: String) throws -> Int? {
            guard let member = object[key], !member.isNull else { return nil }
            guard let number = member.intValue else { throw LooplError(.invalidRequest, "Option '\(key)' must be a whole number.") }
            return number
        }
        maxTokens = try integer("maxTokens")
        temperature = try number("temperature") ?? temperature
        topP = try number("topP") ?? topP
        topK = try integer("topK") ?? topK
        minP = try number("minP") ?? minP
        repeatPenalty = try number("repeatPenalty") ?? repeatPenalty
        if let seed = try integer("seed") {
            guard let fitting = UInt32(exactly: seed) else { throw LooplError(.invalidRequest, "Option 'seed' must be from 0 to 4294967295.") }
            self.seed = fitting
        }
        if let list = object["stop"], !list.isNull {
            guard let items = list.arrayValue?.compactMap(\.stringValue), items.count == list.arrayValue?.count else {
                throw LooplError(.invalidRequest, "Option 'stop' must be a list of strings.")
            }
            stop = items
        }
        if let choice = object["toolChoice"], !choice.isNull {
            guard let name = choice.stringValue else { throw LooplError(.invalidRequest, "Option 'toolChoice' must be a string.") }
            toolChoice = ToolChoice(name: name)
        }
        if let flag = object["ignoreEndOfGeneration"], !flag.isNull {
            guard let bool = flag.boolValue else { throw LooplError(.invalidRequest, "Option 'ignoreEndOfGeneration' must be true or false.") }
            ignoreEndOfGeneration = bool
        }
    }
}

extension Metrics {
    /// The `metrics` object (camelCase, as Metrics' Codable form).
    public var wireValue: JSONValue {
        var object: JSONObject = [
            "promptTokens": .integer(promptTokens), "cachedPromptTokens": .integer(cachedPromptTokens),
            "generatedTokens": .integer(generatedTokens),
        ]
        if let ttftMs { object["ttftMs"] = .double(ttftMs) }
        if let promptEvalMs { object["promptEvalMs"] = .double(promptEvalMs) }
        if let tokensPerSecond { object["tokensPerSecond"] = .double(tokensPerSecond) }
        object["contextUsed"] = .integer(contextUsed)
        object["contextMax"] = .integer(contextMax)
        object["finished"] = .bool(finished)
        if let stopReason { object["stopReason"] = .string(stopReason.rawValue) }
        object["estimated"] = .bool(estimated)
        return .object(object)
    }

    /// Reads a `metrics` object; missing counts are 0, a stop reason outside the vocabulary is an error.
    public init(wireValue value: JSONValue) throws {
        guard let object = value.objectValue else { throw LooplError(.protocolViolation, "Metrics must be an object: \(value.jsonText()).") }
        func count(_ key: String) throws -> Int {
            guard let member = object[key], !member.isNull else { return 0 }
            guard let number = member.intValue else { throw LooplError(.protocolViolation, "Metrics '\(key)' must be a whole number.") }
            return number
        }
        var stopReason: StopReason?
        if let reason = object["stopReason"], !reason.isNull {
            guard let name = reason.stringValue, let known = StopReason(rawValue: name) else {
                throw LooplError(.protocolViolation, "Metrics 'stopReason' \(reason.jsonText()) is not one of end_turn, stop, max_tokens, tool_call, cancelled.")
            }
            stopReason = known
        }
        self.init(promptTokens: try count("promptTokens"), cachedPromptTokens: try count("cachedPromptTokens"),
                  generatedTokens: try count("generatedTokens"), ttftMs: object["ttftMs"]?.doubleValue,
                  promptEvalMs: object["promptEvalMs"]?.doubleValue,
                  tokensPerSecond: object["tokensPerSecond"]?.doubleValue, contextUsed: try count("contextUsed"),
                  contextMax: try count("contextMax"), finished: object["finished"]?.boolValue ?? false,
                  stopReason: stopReason, estimated: object["estimated"]?.boolValue ?? false)
    }
}

extension ModelEvent {
    /// The params of an `event` notification for request `id`.
    public func wireParams(id: JSONValue) -> JSONValue {
        switch self {
        case .text(let text):
            return ["id": id, "type": "text", "text": .string(text)]
        case .toolCall(let call):
            return ["id": id, "type": "toolCall",
                    "toolCall": ["id": .string(call.id), "name": .string(call.name), "arguments": .object(call.arguments)]]
        case .metrics(let metrics):
            return ["id": id, "type": "metrics", "metrics": metrics.wireValue]
        }
    }

    /// Reads the params of an `event` notification (its `id` is checked by the caller).
    public init(wireParams params: JSONValue) throws {
        switch params["type"]?.stringValue {
        case "text":
            guard let text = params["text"]?.stringValue else { throw LooplError(.protocolViolation, "A text event has no string 'text'.") }
            self = .text(text)
        case "toolCall":
            guard let value = params["toolCall"], value["name"]?.stringValue != nil else {
                throw LooplError(.protocolViolation, "A toolCall event has no 'toolCall' with a name.")
            }
            do { self = .toolCall(try ToolCall(templateValue: value)) } catch let error as LooplError {
                throw LooplError(.protocolViolation, "A toolCall event is malformed: \(error.message)")
            }
        case "metrics":
            self = .metrics(try Metrics(wireValue: params["metrics"] ?? .null))
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
    public var wireValue: JSONValue {
        ["protocolVersion": .integer(protocolVersion), "name": .string(name), "version": .string(version),
         "capabilities": ["nativeToolCalls": .bool(nativeToolCalls),
                          "toolCallFormat": toolCallFormat.map { .string($0.rawValue) } ?? .null,
                          "cancellation": .bool(cancellation)],
         "contextMax": .integer(contextMax)]
    }

    /// Reads an `initialize` result; throws `protocolViolation` naming what is missing.
    public init(wireValue value: JSONValue) throws {
        func fail(_ what: String) -> LooplError {
            LooplError(.protocolViolation, "The worker's initialize result \(what): \(WorkerConnection.excerpt(value.jsonText())).")
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
