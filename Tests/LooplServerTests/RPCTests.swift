import Foundation
@testable import Loopl
@testable import LooplServer
import LooplTestKit
import Testing

/// The `server` backend's layers on `ggml-rpc-server` workers: the configuration, two local
/// workers on the default model, their failures and their lifecycle. One server at a time.
@Suite(.serialized) struct RPCTests {
    static let question: [Message] = [.user("What is the capital of France? Answer in one sentence.")]

    /// The configuration that the `server` kind reads from `section`.
    static func read(_ section: JSONObject) throws -> LlamaServerModel.Configuration {
        var reader = ConfigSection(section, context: "backend 'split'")
        reader.accept("kind")
        let configuration = try LlamaServerModel.configuration(from: &reader)
        try reader.finish()
        return configuration
    }

    /// The greedy answer to ``question`` and the text of the child's command line.
    static func answer(_ configuration: LlamaServerModel.Configuration) async throws -> (text: String, commandLine: String) {
        let model = try await LlamaServerModel.start(configuration)
        do {
            let text = try await Self.text(model, maxTokens: 32)
            let pid = try #require(await model.serverProcessID)
            let commandLine = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
            let key = try #require(await model.session.currentChild?.endpoint.apiKey)
            #expect(!commandLine.contains(key), "the API key is on llama-server's command line")
            // The key is in force all the same: a request without it is refused.
            let url = try #require(await model.serverURL)
            let refused = try await ServerEndpoint(baseURL: url, apiKey: nil).fetch("/props")
            #expect(refused.status == 401)
            if !configuration.usesRPC {
                await model.close()
                return (text, commandLine)
            }
            let workers = try #require(await model.session.currentChild?.workers)
            #expect(workers.count == configuration.rpcWorkers)
            for worker in workers {
                #expect(commandLine.contains(worker.endpoint.description))
                #expect(worker.process.lastLines.contains("Accepted client connection"), "\(worker.process.lastLines)")
                // The worker holds its share of the weights (llama-server computes on the RPC devices, not its own CPU).
                #expect(ProcessWatch.residentKilobytes(of: worker.process.pid) > 20_000)
            }
            await model.close()
            return (text, commandLine)
        } catch {
            await model.close()
            throw error
        }
    }

    static func text(_ model: LlamaServerModel, maxTokens: Int) async throws -> String {
        var text = ""
        for try await event in model.generate(messages: question, tools: [], options: .greedy(maxTokens: maxTokens)) {
            if case .text(let piece) = event { text += piece }
        }
        return text
    }

    // MARK: - Configuration

    @Test func readsTheRPCKeys() throws {
        let plain = try Self.read(["kind": "server"])
        #expect(plain.rpc.isEmpty && plain.rpcWorkers == 0 && plain.rpcThreads == 1 && !plain.allowRemoteRPC)
        let split = try Self.read(["kind": "server", "rpcWorkers": 2, "rpcThreads": 3,
                                   "rpc": ["127.0.0.1:50052", "[::1]:50053", "10.0.0.7:50052"], "allowRemoteRPC": true])
        #expect(split.rpcWorkers == 2 && split.rpcThreads == 3 && split.allowRemoteRPC)
        #expect(try split.rpcEndpoints().map(\.description) == ["127.0.0.1:50052", "[::1]:50053", "10.0.0.7:50052"])
        #expect(try split.rpcEndpoints().map(\.isLoopback) == [true, true, false])
        #expect(split.target == .child(model: LooplHome.defaultModel))
    }

    /// Only address literals on this machine and `localhost` count as loopback, never a name that starts like one.
    @Test func loopbackIsParsedNotPrefixMatched() {
        let loopback = ["127.0.0.1", "127.255.3.4", "::1", "0:0:0:0:0:0:0:1", "LocalHost", "::ffff:127.0.0.1"]
        let remote = ["127.0.0.1.nip.io", "127.evil.example", "128.0.0.1", "::2", "::ffff:10.0.0.1", "localhost.example", "1127.0.0.1"]
        for host in loopback { #expect(RPCEndpoint(host: host, port: 50052).isLoopback, "\(host)") }
        for host in remote { #expect(!RPCEndpoint(host: host, port: 50052).isLoopback, "\(host)") }
    }

    @Test(arguments: [
        (#"{"kind": "server", "rpc": ["192.168.1.20:50052"]}"#, "not on this machine, and llama.cpp's RPC protocol has no authentication"),
        (#"{"kind": "server", "rpc": ["127.0.0.1.nip.io:50052"]}"#, "not on this machine, and llama.cpp's RPC protocol has no authentication"),
        (#"{"kind": "server", "rpc": ["127.0.0.1"]}"#, "is not host:port"),
        (#"{"kind": "server", "rpc": ["127.0.0.1:0"]}"#, "is not host:port"),
        (#"{"kind": "server", "rpc": "127.0.0.1:50052"}"#, "'rpc' must be a list of strings"),
        (#"{"kind": "server", "rpcWorkers": -1}"#, "'rpcWorkers' must be a whole number"),
        (#"{"kind": "server", "rpcWorkers": 17}"#, "at most 16 RPC workers"),
        (#"{"kind": "server", "parallel": 1e12}"#, "'parallel' must be a whole number, 0 or more (at most 2147483647)"),
        (#"{"kind": "server", "parallel": 5000, "contextLength": 2000000000}"#, "'parallel' must be from 1 to 1024"),
        (#"{"kind": "server", "allowRemoteRPC": "yes"}"#, "'allowRemoteRPC' must be true or false"),
        (#"{"kind": "server", "url": "http://127.0.0.1:8080", "rpcWorkers": 2}"#, "for a child llama-server"),
    ])
    func badRPCConfigsAreClearErrors(_ text: String, _ message: String) throws {
        let section = try #require(try JSONValue(parsing: text).objectValue)
        do {
            _ = try Self.read(section)
            Issue.record("accepted: \(text)")
        } catch let error as LooplError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("backend 'split'"), "\(error.message)")
            #expect(error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aRemoteWorkerWithoutAllowRemoteRPCIsRefusedAtStart() async {
        let error = await #expect(throws: LooplError.self) {
            try await LlamaServerModel.start(.init(rpc: ["10.1.2.3:50052"]))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("The RPC worker 10.1.2.3:50052 is not on this machine, and llama.cpp's RPC protocol has no authentication") == true,
                "\(error?.message ?? "")")
    }

    @Test(.timeLimit(.minutes(1)))
    func aWorkerThatRefusesConnectionsIsNamed() async throws {
        let port = try FreePort.find()
        let error = await #expect(throws: LooplError.self) {
            try await LlamaServerModel.start(.init(contextLength: 256, threads: 1, rpc: ["127.0.0.1:\(port)"]))
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("The RPC worker at 127.0.0.1:\(port) refuses connections") == true, "\(error?.message ?? "")")
    }

    // MARK: - Two local workers

    @Test(.timeLimit(.minutes(5)))
    func theSplitModelGivesTheUnsplitGreedyAnswer() async throws {
        let unsplit = try await Self.answer(.init(contextLength: 512, threads: 1))
        #expect(!unsplit.commandLine.contains("--rpc"))
        let split = try await Self.answer(.init(contextLength: 512, threads: 1, rpcWorkers: 2))
        #expect(split.commandLine.contains("--rpc\u{0}127.0.0.1:") && split.commandLine.contains("-ngl\u{0}99"))
        #expect(!unsplit.text.isEmpty)
        #expect(split.text == unsplit.text)
    }

    @Test(.timeLimit(.minutes(5)))
    func aWorkerKilledMidStreamIsNamedAndTheNextRequestRestartsThem() async throws {
        let model = try await LlamaServerModel.start(.init(contextLength: 2048, threads: 1, rpcWorkers: 2))
        do {
            let workers = try #require(await model.session.currentChild?.workers)
            let server = try #require(await model.serverProcessID)
            let consumer = try await LlamaServerModelTests.startLongAnswer(model)
            kill(workers[1].process.pid, SIGKILL)
            guard case .failure(let failure) = await consumer.value else {
                Issue.record("the answer went on without its worker")
                await model.close()
                return
            }
            let error = try #require(failure as? LooplError, "\(failure)")
            #expect(error.code == .processFailed)
            #expect(error.message.contains("The RPC worker at \(workers[1].endpoint) (ggml-rpc-server, pid \(workers[1].process.pid)) was killed by signal 9"),
                    "\(error.message)")
            #expect(!(try await Self.text(model, maxTokens: 8)).isEmpty)
            let restarted = await model.rpcWorkerProcessIDs
            #expect(restarted.count == 2 && Set(restarted).isDisjoint(with: workers.map(\.process.pid)))
            for old in workers.map(\.process.pid) + [server] {
                #expect(await ProcessWatch.waitUntilGone(old, timeout: .seconds(5)), "\(old) of the first child is still there")
            }
        } catch {
            await model.close()
            throw error
        }
        await model.close()
    }

    @Test(.timeLimit(.minutes(5)))
    func theHostKilledLeavesNoServerAndNoWorker() async throws {
        let host = try ChildProcess(executable: HostLifecycleTests.hostPath, arguments: ["hold", LooplHome.defaultModel, "2"],
                                    output: .stream)
        var text = ""
        for await chunk in host.output {
            text += String(decoding: chunk, as: UTF8.self)
            if text.contains("\n") { break }
        }
        let pids = text.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { Int32($0) }
        guard text.hasPrefix("child "), pids.count == 3 else {
            await host.terminate()
            Issue.record("the host printed \(text.debugDescription); its log: \(host.lastLines)")
            return
        }
        #expect(pids.allSatisfy(ProcessWatch.isRunning))
        #expect(pids.dropFirst().allSatisfy { ProcessWatch.command(of: $0).hasPrefix("ggml-rpc-server") })
        host.signal(SIGKILL)
        #expect(await host.waitForExit() == 128 + SIGKILL)
        for pid in pids {
            #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(5)), "\(ProcessWatch.command(of: pid)) \(pid) outlived its host")
        }
    }
}
