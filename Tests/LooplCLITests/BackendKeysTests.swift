import Foundation
import Loopl
import LooplLlama
import LooplServer
import LooplStdio
import Synchronization
import Testing

/// docs/backend-keys.md lists the keys each built-in kind reads, and the renamed keys still read.
@Suite struct BackendKeysTests {
    @Test func theDocumentedKeysAreTheKeysTheReadersRead() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/backend-keys.md")
        var documented: [String: Set<String>] = [:]
        for line in try String(contentsOf: docs, encoding: .utf8).split(separator: "\n") where line.hasPrefix("- `") {
            let words = line.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            documented[words[0]] = Set(words.dropFirst())
        }
        let common = try #require(try String(contentsOf: docs, encoding: .utf8).split(separator: "\n\n")
            .first { $0.contains("Every kind\nalso takes") || $0.contains("Every kind also takes") })
        let sentence = common[try #require(common.range(of: "also takes")).upperBound...].prefix { $0 != "(" }
        let named = sentence.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(named == BackendConfig.commonKeys, "the keys every kind takes, as docs/backend-keys.md names them")
        let kinds: [(BackendKind, JSONObject)] = [(LlamaModel.kind, [:]), (LlamaServerModel.kind, [:]),
                                                   (StdioModel.kind(), ["command": ["worker"]])]
        #expect(Set(documented.keys) == Set(kinds.map(\.0.name)))
        for (kind, sample) in kinds {
            #expect(try kind.keys(reading: sample) == documented[kind.name], "\(kind.name)")
        }
    }

    @Test func keepAliveTakesSecondsOrOllamasDurations() throws {
        let config = { (value: String) throws in
            try LooplConfig(json: #"{"default": "w", "backends": {"w": {"kind": "stdio", "command": ["worker"], "keepAlive": \#(value)}}}"#,
                            kinds: [StdioModel.kind()]).backend("w").keepAlive
        }
        #expect(try config("90") == KeepAlive(seconds: 90) && config(#""5m""#) == KeepAlive(seconds: 300))
        #expect(try config(#""1h30m""#)?.seconds == 5400 && config("0")?.seconds == 0 && config(#""-1""#) == .forever)
        #expect(throws: LooplError.self) { try config(#""soon""#) }
    }

    @Test func anOldKeyReadsAsItsNewNameWithAWarning() async throws {
        let warnings = Mutex<[String]>([])
        var section = ConfigSection(["binary": "/opt/llama-server", "extraArgs": ["-fa", "on"]], context: "backend 'old'")
        let configuration = try await Warnings.routing(to: { message in warnings.withLock { $0.append(message) } }) {
            try LlamaServerModel.configuration(from: &section)
        }
        #expect(configuration.serverPath == "/opt/llama-server")
        #expect(configuration.extraArguments == ["-fa", "on"])
        #expect(warnings.withLock { $0 } == [
            "backend 'old': 'binary' is the old name of 'serverPath', accepted until the next release; write 'serverPath'.",
            "backend 'old': 'extraArgs' is the old name of 'extraArguments', accepted until the next release; write 'extraArguments'.",
        ])
        var both = ConfigSection(["binary": "a", "serverPath": "b"], context: "backend 'both'")
        #expect(throws: LooplError(.invalidConfiguration, "Invalid configuration: backend 'both': give 'serverPath' only: 'binary' is its old name.")) {
            try LlamaServerModel.configuration(from: &both)
        }
    }
}
