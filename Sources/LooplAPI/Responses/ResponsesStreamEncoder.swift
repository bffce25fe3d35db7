import Loopl

/// Server-sent events of a streamed response: each named by its `type` and numbered from 0.
package struct ResponsesStreamEncoder: Sendable {
    /// The number the next event gets.
    package private(set) var sequenceNumber = 0

    /// A counter starting at 0.
    package init() {}

    /// `event` framed as `event: TYPE` and `data: {..., "sequence_number": n}`, numbered next.
    package mutating func frame(_ event: JSONObject) -> [UInt8] {
        var event = event
        event["sequence_number"] = .integer(sequenceNumber)
        sequenceNumber += 1
        let type = event["type"]?.stringValue ?? "message"
        return Array("event: \(type)\ndata: \(JSONValue.object(event).jsonText())\n\n".utf8)
    }

    /// A lifecycle event carrying the whole `response`: `response.created`, `response.completed`, ...
    package static func lifecycle(_ type: String, _ response: JSONValue) -> JSONObject {
        ["type": .string(type), "response": response]
    }
}
