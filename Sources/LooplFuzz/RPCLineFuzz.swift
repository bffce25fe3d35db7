import Loopl
import LooplStdio

/// The stdio protocol's line decoder, as both ends run it: bytes cut into lines (in chunks, with a
/// small line limit), each line parsed as JSON, read as JSON-RPC 2.0, its params read as the
/// protocol's shapes, and the message written back and read again. The bytes in chunks must give
/// the same lines as the bytes at once.
package enum RPCLineFuzz {
    package static let target = FuzzTarget(name: "rpc", dictionary: dictionary.map { Array($0.utf8) }) { run($0) }

    static func run(_ bytes: [UInt8]) -> String? {
        var seed = FuzzInput.checksum(bytes)
        var splitter = LineSplitter(limit: 4096)
        var start = 0
        var lines: [[UInt8]?] = []
        while start < bytes.count {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let end = min(bytes.count, start + Int(seed >> 57) + 1)
            for piece in splitter.feed(Array(bytes[start..<end])) {
                if case .line(let line) = piece { read(line); lines.append(line) } else { lines.append(nil) }
            }
            start = end
        }
        _ = splitter.remainder
        var once = LineSplitter(limit: 4096)
        let whole: [[UInt8]?] = once.feed(bytes).map { if case .line(let line) = $0 { line } else { nil } }
        return lines == whole ? nil : "in chunks the bytes gave \(lines.count) lines, at once \(whole.count), or other ones"
    }

    static func read(_ line: [UInt8]) {
        guard let value = try? JSONValue(parsing: line) else { return }
        guard case .success(let message) = RPCMessage.read(value) else { return }
        switch message {
        case .request(_, _, let params), .notification(_, let params):
            _ = try? ModelEvent(wireParams: params)
            _ = try? (params["messages"]?.arrayValue ?? []).map(Message.init(templateValue:))
            _ = try? (params["tools"]?.arrayValue ?? []).map(ToolSpec.init(openAIValue:))
            _ = try? (params["options"] ?? .null).decode(GenerationOptions.self)
        case .response(_, .success(let result)):
            _ = try? WorkerInfo(wireValue: result)
            _ = try? result.decode(Metrics.self)
        case .response(_, .failure(let error)):
            _ = error.looplError
        }
        _ = try? JSONValue(parsing: message.line.dropLast()).jsonText()
    }

    static let dictionary = [
        "\"jsonrpc\"", "\"2.0\"", "\"id\"", "\"method\"", "\"params\"", "\"result\"", "\"error\"", "\"code\"",
        "\"message\"", "\"data\"", "\"looplCode\"", "\"initialize\"", "\"generate\"", "\"event\"", "\"shutdown\"",
        "\"$/cancelRequest\"", "\"protocolVersion\"", "\"messages\"", "\"tools\"", "\"options\"", "\"type\"",
        "\"text\"", "\"toolCall\"", "\"metrics\"", "\"arguments\"", "\"name\"", "\"role\"", "\"content\"",
        "\"maxTokens\"", "\"temperature\"", "\"seed\"", "\"stop\"", "\"toolChoice\"", "\"capabilities\"",
        "\"contextMax\"", "\"promptTokens\"", "1e400", "-0", "18446744073709551616", "\\ud83d\\ude00", "\\ud800",
        "null", "true", "{", "}", "[", "]", ":", ",", "\n", "\r\n",
    ]
}
