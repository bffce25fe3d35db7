import Loopl

extension ChatStreamInvariants {
    /// The chunks of a streamed answer's raw body, for checking a real stream: each `data:` event
    /// parsed as JSON up to `data: [DONE]`, comments (`: ping`) skipped. `problems` lists what
    /// breaks the framing: an event that is not JSON, an error event, no `[DONE]`, or anything
    /// after it.
    package static func chunks(fromSSE body: [UInt8]) -> (chunks: [JSONValue], problems: [String]) {
        let text = String(decoding: body, as: UTF8.self).replacingCRLF()
        var chunks: [JSONValue] = []
        var problems: [String] = []
        var done = false
        for (number, event) in text.split(separator: "\n\n", omittingEmptySubsequences: true).enumerated() {
            let data = event.split(separator: "\n").filter { !$0.hasPrefix(":") }
                .compactMap { line in line.hasPrefix("data:") ? line.dropFirst(5).drop { $0 == " " } : nil }
            guard !data.isEmpty else { continue }
            let payload = data.joined(separator: "\n")
            if done { problems.append("event \(number) comes after [DONE]") }
            if payload == "[DONE]" {
                done = true
                continue
            }
            guard let json = try? JSONValue(parsing: payload) else {
                problems.append("event \(number) is not JSON: \(payload.prefix(80))")
                continue
            }
            if json["error"] != nil { problems.append("event \(number) is an error: \(json.jsonText().prefix(200))") }
            chunks.append(json)
        }
        if !done { problems.append("the stream does not end with data: [DONE]") }
        return (chunks, problems)
    }

    /// Every problem of a raw streamed body: its framing's and its chunks' invariants'.
    package static func violations(inSSE body: [UInt8]) -> [String] {
        let parsed = chunks(fromSSE: body)
        return parsed.problems + violations(in: parsed.chunks.filter { $0["error"] == nil })
    }
}

extension String {
    /// The text with CRLF and lone CR line ends turned into LF, as SSE allows all three.
    fileprivate func replacingCRLF() -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                out.unicodeScalars.append("\n")
                previousCR = true
                continue
            }
            if !(scalar == "\n" && previousCR) { out.unicodeScalars.append(scalar) }
            previousCR = false
        }
        return out
    }
}
