import Foundation
import Glibc
import Loopl
import LooplStdio
import LooplTestKit
import Testing

/// A worker the config names is a third party: it sees only the environment it is given.
@Suite(.serialized) struct WorkerEnvironmentTests {
    /// The environment a worker started with `configuration` saw, as `NAME=value` lines.
    static func environment(_ configuration: (String) -> StdioModel.Configuration) async throws -> [String: String] {
        let dump = FileManager.default.temporaryDirectory.appendingPathComponent("worker-env-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dump) }
        let model = try await StdioModel.start(configuration(dump))
        await model.close()
        var seen: [String: String] = [:]
        for line in try String(contentsOfFile: dump, encoding: .utf8).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            seen[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return seen
    }

    /// A worker behind `sh -c` that writes its environment to the file `$0`, then runs the reference worker.
    static func dumping(to file: String) -> [String] {
        ["/bin/sh", "-c", "env > \"$0\"; exec python3 \"$1\"", file, Fixtures.pythonWorker]
    }

    @Test(.timeLimit(.minutes(1)))
    func aWorkerSeesNoneOfTheHostsSecrets() async throws {
        let seen = try await withEnvironment(["AWS_SECRET_ACCESS_KEY": "planted-aws-secret", "OPENAI_API_KEY": "planted-openai-key"]) {
            try await Self.environment { file in StdioModel.Configuration(command: Self.dumping(to: file)) }
        }
        #expect(seen["AWS_SECRET_ACCESS_KEY"] == nil)
        #expect(seen["OPENAI_API_KEY"] == nil)
        #expect(seen["PATH"] == ProcessInfo.processInfo.environment["PATH"])
    }

    /// The config's `env` and `inheritEnv` reach the worker, on top of PATH and the rest of the basic set.
    @Test(.timeLimit(.minutes(1)))
    func envAndInheritEnvReachTheWorker() async throws {
        let seen = try await withEnvironment(["LOOPL_TEST_INHERITED": "inherited", "OPENAI_API_KEY": "planted-openai-key"]) {
            try await Self.environment { file in
                var configuration = StdioModel.Configuration(command: Self.dumping(to: file), environment: ["WORKER_SETTING": "set"])
                configuration.inheritEnv = ["LOOPL_TEST_INHERITED"]
                return configuration
            }
        }
        #expect(seen["PATH"] == ProcessInfo.processInfo.environment["PATH"])
        #expect(seen["WORKER_SETTING"] == "set")
        #expect(seen["LOOPL_TEST_INHERITED"] == "inherited")
        #expect(seen["OPENAI_API_KEY"] == nil)
    }

    /// The section's `env` and `inheritEnv` are read; only Loopl's own `loopl worker` inherits everything.
    @Test func theSectionSaysWhatTheWorkerInherits() throws {
        var section = ConfigSection(["command": ["my-worker", "--fast"], "env": ["A": "1"], "inheritEnv": ["B"]], context: "backend 'w'")
        let configuration = try StdioModel.configuration(from: &section, builtInCommand: ["/opt/loopl", "worker"])
        #expect(configuration.environment == ["A": "1"])
        #expect(configuration.inheritEnv == ["B"])
        #expect(!configuration.inheritsHostEnvironment)
        var own = ConfigSection(["command": ["/opt/loopl", "worker", "--model", "m.gguf"]], context: "backend 'w'")
        #expect(try StdioModel.configuration(from: &own, builtInCommand: ["/opt/loopl", "worker"]).inheritsHostEnvironment)
    }
}
