import Loopl
@testable import LooplStdio
import Testing

/// The `rawPrompt` capability of version 2: read when declared, false when absent or in version 1.
@Suite struct RawPromptWireTests {
    static func answer(version: Int, rawPrompt: JSONValue?) -> JSONValue {
        var capabilities: JSONObject = ["nativeToolCalls": true, "cancellation": true]
        if let rawPrompt { capabilities["rawPrompt"] = rawPrompt }
        return ["protocolVersion": .integer(version), "name": "w", "capabilities": .object(capabilities), "contextMax": 512]
    }

    @Test func theCapabilityIsReadInVersionTwoOnly() throws {
        #expect(try WorkerInfo(wireValue: Self.answer(version: 2, rawPrompt: true)).rawPrompt)
        #expect(try !WorkerInfo(wireValue: Self.answer(version: 2, rawPrompt: nil)).rawPrompt)
        #expect(try !WorkerInfo(wireValue: Self.answer(version: 1, rawPrompt: true), offered: 1).rawPrompt)
        let error = #expect(throws: LooplError.self) { try WorkerInfo(wireValue: Self.answer(version: 2, rawPrompt: "yes")) }
        #expect(error?.code == .protocolViolation && error?.message.contains("rawPrompt") == true)
        let declared = WorkerInfo(name: "w", version: "1", nativeToolCalls: true, toolCallFormat: nil, cancellation: true,
                                  rawPrompt: true, contextMax: 512)
        #expect(declared.wireValue["capabilities"]?["rawPrompt"] == true)
        #expect(try WorkerInfo(wireValue: declared.wireValue) == declared)
    }
}
