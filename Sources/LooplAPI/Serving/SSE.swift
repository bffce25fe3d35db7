import Loopl

/// Server-sent event framing for streamed answers.
package enum SSE {
    /// One event carrying `json`: `data: <compact JSON>` and a blank line.
    package static func data(_ json: JSONValue) -> [UInt8] {
        Array("data: \(json.jsonText())\n\n".utf8)
    }

    /// The event that ends an OpenAI stream: `data: [DONE]`.
    package static let done: [UInt8] = Array("data: [DONE]\n\n".utf8)

    /// A comment line that keeps an idle connection open; clients ignore it.
    package static let ping: [UInt8] = Array(": ping\n\n".utf8)
}
