import Loopl

/// Turns a `tools/call` result into the text the model reads.
///
/// Text blocks are joined by newlines; without any, `structuredContent` is given as JSON. Image,
/// audio and resource blocks become a short placeholder naming their type and size. A result
/// with `isError` is a thrown error, so that the agent reports a failed call.
enum MCPToolOutput {
    static func text(of result: JSONValue, server: String, tool: String) throws -> String {
        guard let object = result.objectValue else {
            throw LooplError(.protocolViolation, "MCP server '\(server)' answered a call of \(tool) with \(Mailbox.excerpt(result.jsonText())), not a result object.")
        }
        let blocks = object["content"]?.arrayValue ?? []
        var parts: [String] = []
        var hasText = false
        for block in blocks {
            let type = block["type"]?.stringValue ?? "unknown"
            if type == "text", let text = block["text"]?.stringValue {
                parts.append(text)
                hasText = true
            } else {
                parts.append(placeholder(block, type: type))
            }
        }
        if !hasText, let structured = object["structuredContent"], structured != .null {
            parts.insert(structured.jsonText(), at: 0)
        }
        let text = parts.joined(separator: "\n")
        if object["isError"]?.boolValue == true {
            throw LooplError(.invalidRequest, "MCP server '\(server)' reported that \(tool) failed: \(text.isEmpty ? "(no details)" : text)")
        }
        return text
    }

    /// "[image: image/png, 1234 bytes]", "[resource: file:///a.txt, text/plain, 20 bytes]".
    private static func placeholder(_ block: JSONValue, type: String) -> String {
        var facts: [String] = []
        let payload = type == "resource" ? (block["resource"] ?? .null) : block
        if let uri = payload["uri"]?.stringValue { facts.append(uri) }
        if let mime = payload["mimeType"]?.stringValue { facts.append(mime) }
        if let data = (payload["data"] ?? payload["blob"])?.stringValue {
            facts.append("\(base64Size(data)) bytes")
        } else if let text = payload["text"]?.stringValue {
            facts.append("\(text.utf8.count) bytes")
        }
        return "[\(type)\(facts.isEmpty ? "" : ": " + facts.joined(separator: ", "))]"
    }

    /// The decoded size of base64 text.
    private static func base64Size(_ text: String) -> Int {
        let padding = text.utf8.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        return max(0, text.utf8.count / 4 * 3 - padding)
    }
}
