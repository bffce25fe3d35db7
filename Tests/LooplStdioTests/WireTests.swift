import Loopl
@testable import LooplStdio
import Testing

/// Framing, JSON-RPC classification and the params' shapes.
@Suite struct WireTests {
    @Test func splitterCutsLinesAcrossChunks() {
        var splitter = LineSplitter(limit: 10)
        var lines: [[UInt8]] = []
        for chunk in [Array("ab".utf8), Array("c\r\nde\n\nf".utf8)] {
            for piece in splitter.feed(chunk) {
                if case .line(let bytes) = piece { lines.append(bytes) }
            }
        }
        #expect(lines == [Array("abc".utf8), Array("de".utf8), []])
        #expect(splitter.remainder == Array("f".utf8))
    }

    @Test func splitterRefusesAnOverlongLineOnceAndRecovers() {
        var splitter = LineSplitter(limit: 4)
        let pieces = splitter.feed(Array("abc".utf8)) + splitter.feed(Array("defgh".utf8)) + splitter.feed(Array("ij\nok\n".utf8))
        #expect(pieces.count == 2)
        guard pieces.count == 2 else { return }
        if case .tooLong = pieces[0] {} else { Issue.record("expected tooLong first, got \(pieces[0])") }
        if case .line(let bytes) = pieces[1] { #expect(bytes == Array("ok".utf8)) } else { Issue.record("expected the next line") }
    }

    @Test(arguments: [
        (#"[1]"#, "not a JSON object"),
        (#"{"id": 1, "result": null}"#, "jsonrpc"),
        (#"{"jsonrpc": "2.0", "id": 1}"#, "exactly one of result and error"),
        (#"{"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}"#, "integer code"),
        (#"{"jsonrpc": "2.0", "method": 3}"#, "method is not a string"),
        (#"{"jsonrpc": "2.0", "id": [1], "method": "m"}"#, "id is neither"),
    ])
    func notJSONRPC(_ text: String, _ reason: String) throws {
        guard case .failure(let problem) = RPCMessage.read(try JSONValue(parsing: text)) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(problem.reason.contains(reason), "\(problem.reason)")
    }

    @Test func messagesRoundTrip() throws {
        let messages: [RPCMessage] = [
            .request(id: 1, method: "generate", params: ["a": 1]),
            .notification(method: "event", params: ["id": 1, "type": "text", "text": "é\n"]),
            .response(id: "x", result: .success(.null)),
            .response(id: 2, result: .failure(RPCError(code: -32800, message: "cancelled", data: ["looplCode": "cancelled"]))),
        ]
        for message in messages {
            let line = message.line
            #expect(line.last == 0x0A)
            #expect(line.dropLast().contains(0x0A) == false)
            #expect(try RPCMessage.read(JSONValue(parsing: line.dropLast())).get() == message)
        }
    }

    @Test func optionsAndMetricsTravelAsTheirCodableForm() throws {
        var options = GenerationOptions(maxTokens: 7, temperature: 0, seed: 4_000_000_000, stop: ["\n"], toolChoice: .tool("calc"))
        options.backend.ignoreEndOfGeneration = true
        let wire = try JSONValue(encoding: options)
        #expect(try wire.decode(GenerationOptions.self) == options)
        #expect(wire["temperature"] == .double(0))
        #expect(wire["seed"] == 4_000_000_000)
        #expect(wire["toolChoice"] == "calc")
        #expect(try JSONValue(parsing: #"{"maxTokens": 7, "temperature": 0.0, "seed": 4000000000, "stop": ["\n"], "toolChoice": "calc", "ignoreEndOfGeneration": true}"#)
            .decode(GenerationOptions.self) == options)
        #expect(try JSONValue.object([:]).decode(GenerationOptions.self) == GenerationOptions())
        var reasoningOptions = options
        (reasoningOptions.reasoning, reasoningOptions.reasoningBudget, reasoningOptions.conversation) = (.effort(.high), 256, "conversation-7")
        let reasoningWire = try JSONValue(encoding: reasoningOptions)
        #expect(reasoningWire["reasoning"] == "high" && reasoningWire["reasoningBudget"] == 256 && reasoningWire["conversation"] == "conversation-7")
        #expect(try reasoningWire.decode(GenerationOptions.self) == reasoningOptions)
        #expect(try JSONValue.object(["conversation": "c", "someFutureKey": true]).decode(GenerationOptions.self).conversation == "c")
        #expect(throws: LooplError.self) { try JSONValue.object(["topK": 1.5]).decode(GenerationOptions.self) }
        #expect(throws: LooplError.self) { try JSONValue.object(["seed": -1]).decode(GenerationOptions.self) }
        let metrics = Metrics(promptTokens: 3, generatedTokens: 1, ttftMs: 2.5, contextUsed: 4, contextMax: 10, finished: true, stopReason: .toolCall)
        #expect(try JSONValue(encoding: metrics).decode(Metrics.self) == metrics)
        #expect(try JSONValue.object([:]).decode(Metrics.self) == Metrics())
        #expect(throws: LooplError.self) { try JSONValue.object(["stopReason": "length"]).decode(Metrics.self) }
    }

    @Test func eventParamsMatchTheDocumentedLines() throws {
        let call = ToolCall(id: "call_1", name: "calc", arguments: ["x": 1, "y": 1.0])
        let metrics = Metrics(promptTokens: 3, generatedTokens: 1, ttftMs: 2.5, contextUsed: 4, contextMax: 10, finished: true, stopReason: .toolCall)
        #expect(try ModelEvent.text("hi").wireParams(id: 5).jsonText() == #"{"id":5,"type":"text","text":"hi"}"#)
        #expect(try ModelEvent.toolCall(call).wireParams(id: 5).jsonText()
            == #"{"id":5,"type":"toolCall","toolCall":{"id":"call_1","name":"calc","arguments":{"x":1,"y":1.0}}}"#)
        #expect(try ModelEvent.metrics(metrics).wireParams(id: 5).jsonText()
            == #"{"id":5,"type":"metrics","metrics":{"promptTokens":3,"cachedPromptTokens":0,"generatedTokens":1,"ttftMs":2.5,"contextUsed":4,"contextMax":10,"finished":true,"stopReason":"tool_call","estimated":false}}"#)
        #expect(try ModelEvent.metrics(metrics).wireParams(id: 5)["metrics"] == JSONValue(encoding: metrics))
        #expect(throws: LooplError(.protocolViolation, "A metrics event is malformed: Metrics 'stopReason' is \"length\", not one of end_turn, stop, max_tokens, tool_call, cancelled.")) {
            try ModelEvent(wireParams: ["id": 1, "type": "metrics", "metrics": ["stopReason": "length"]])
        }
    }

    @Test func eventsRoundTrip() throws {
        let events: [ModelEvent] = [
            .text("hi"), .toolCall(ToolCall(id: "call_1", name: "calc", arguments: ["x": 1, "y": 1.0, "z": true])),
            .metrics(Metrics(generatedTokens: 2)),
        ]
        for event in events {
            let params = try event.wireParams(id: 5)
            #expect(params["id"] == 5)
            #expect(try ModelEvent(wireParams: params) == event)
        }
        #expect(throws: LooplError.self) { try ModelEvent(wireParams: ["id": 1, "type": "image"]) }
    }

    @Test func workerErrorsKeepTheirLooplCode() {
        let error = RPCError(LooplError(.contextOverflow, "too long"))
        #expect(error.looplError == LooplError(.contextOverflow, "too long"))
        #expect(RPCError(code: -32800, message: "stop").looplError.code == .cancelled)
        #expect(RPCError(code: -32603, message: "boom").looplError.code == .generationFailed)
        #expect(error.looplError.engineLoss == nil)
        let lost = RPCError(LooplError(.processFailed, "llama-server died", engineLoss: .restarting))
        #expect(lost.data == ["looplCode": "process_failed", "engineLoss": true])
        #expect(lost.looplError.engineLoss == .restarting)
    }

    @Test func initializeResultIsChecked() throws {
        let info = WorkerInfo(name: "w", version: "1", nativeToolCalls: false, toolCallFormat: .hermes, cancellation: true,
                              reasoning: true, concurrentRequests: 3, contextMax: 9)
        #expect(try WorkerInfo(wireValue: info.wireValue) == info)
        #expect(info.wireValue["capabilities"]?["concurrentRequests"] == 3)
        #expect(info.markup == .hermes)
        var newer = info.wireValue.objectValue ?? [:]
        newer["protocolVersion"] = .integer(StdioProtocol.version + 1)
        #expect(throws: LooplError.self) { try WorkerInfo(wireValue: .object(newer)) }
        // Version 2 answered to an offer of version 1.
        #expect(throws: LooplError.self) { try WorkerInfo(wireValue: info.wireValue, offered: 1) }
        var zero = info.wireValue
        zero = try JSONValue(parsing: zero.jsonText().replacingOccurrences(of: #""concurrentRequests":3"#, with: #""concurrentRequests":0"#))
        #expect(throws: LooplError.self) { try WorkerInfo(wireValue: zero) }
    }

    /// `embeddings` is version 3's: read when declared then, ignored in version 2, a type error when not a boolean.
    @Test func embeddingsIsAVersion3Capability() throws {
        let v3 = try JSONValue(parsing: #"{"protocolVersion": 3, "name": "e", "capabilities": {"nativeToolCalls": true, "embeddings": true}, "contextMax": 64}"#)
        let info = try WorkerInfo(wireValue: v3)
        #expect(info.embeddings)
        #expect(info.wireValue["capabilities"]?["embeddings"] == true)
        let v2 = try JSONValue(parsing: #"{"protocolVersion": 2, "name": "e", "capabilities": {"nativeToolCalls": true, "embeddings": true}, "contextMax": 64}"#)
        #expect(try !WorkerInfo(wireValue: v2).embeddings)
        let wrong = try JSONValue(parsing: #"{"protocolVersion": 3, "name": "e", "capabilities": {"nativeToolCalls": true, "embeddings": "yes"}, "contextMax": 64}"#)
        #expect(throws: LooplError.self) { try WorkerInfo(wireValue: wrong) }
    }

    @Test func version1CapabilitiesAreOneAtATimeWithoutReasoning() throws {
        let old: JSONValue = try JSONValue(parsing: #"{"protocolVersion": 1, "name": "old", "capabilities": {"nativeToolCalls": true, "cancellation": true, "reasoning": true, "concurrentRequests": 8}, "contextMax": 512}"#)
        let info = try WorkerInfo(wireValue: old)
        #expect(info.protocolVersion == 1 && info.concurrentRequests == 1 && !info.reasoning)
        #expect(info.wireValue["capabilities"]?["concurrentRequests"] == nil)
        let v2: JSONValue = try JSONValue(parsing: #"{"protocolVersion": 2, "name": "new", "capabilities": {"nativeToolCalls": true}, "contextMax": 512}"#)
        let defaults = try WorkerInfo(wireValue: v2)
        #expect(defaults.concurrentRequests == 1 && !defaults.reasoning && !defaults.cancellation)
    }

    @Test(arguments: [#""toolCallFormat": null"#, #""cancellation": true"#])
    func aTextWorkerWithoutAFamilyIsAuto(_ capability: String) throws {
        for version in [1, 2] {
            let value = try JSONValue(parsing: #"{"protocolVersion": \#(version), "name": "plain", "capabilities": {"nativeToolCalls": false, \#(capability)}, "contextMax": 64}"#)
            #expect(try WorkerInfo(wireValue: value).markup == .auto)
        }
    }

    @Test func aWorkerNamingAnUnknownFamilyIsAProtocolError() throws {
        let value = try JSONValue(parsing: #"{"protocolVersion": 2, "name": "odd", "capabilities": {"nativeToolCalls": false, "toolCallFormat": "hermes-9"}, "contextMax": 64}"#)
        #expect(throws: LooplError(.protocolViolation, "The worker's initialize result has capabilities.toolCallFormat 'hermes-9' is not a tool-call format; use one of \(ToolCallFormat.allCases.map(\.rawValue).joined(separator: ", ")).")) {
            try WorkerInfo(wireValue: value)
        }
    }
}
