import Foundation
import Loopl
import LooplTestKit

/// Starts this host in `generate` or `save` mode, kills it with SIGKILL, and checks what it left:
/// no child after 5 s, or a session file with the old or the new content, never a broken one.
struct KillTrials {
    enum Target: String { case server, stdio, save, run }

    let target: Target
    let trials: Int
    /// The seed of the `run` target's kill moments.
    let seed: UInt64

    init(target name: String, trials: Int, seed: UInt64 = .random(in: 0...UInt64.max)) throws {
        guard let target = Target(rawValue: name) else {
            throw LooplError(.invalidRequest, "Unknown kill target '\(name)': use server, stdio, save or run.")
        }
        self.target = target
        self.trials = trials
        self.seed = seed
    }

    /// This host's binary, as the kernel names it (not the name it was started by).
    static var hostPath: String {
        get throws { try RunningExecutable.path() }
    }

    func run() async throws -> JSONValue {
        switch target {
        case .save: try await saveTrials()
        case .run: try await RunKillTrials(trials: trials, seed: seed).run()
        case .server, .stdio: try await generationTrials()
        }
    }

    /// Starts a host with `arguments` and reads its output until a line starting with `marker`;
    /// returns the host and every line up to and including that one.
    static func startHost(_ arguments: [String], until marker: String) async throws -> (ChildProcess, [String]) {
        let host = try ChildProcess(executable: hostPath, arguments: arguments, output: .stream)
        var text = ""
        for await chunk in host.output {
            text += String(decoding: chunk, as: UTF8.self)
            if text.split(separator: "\n").contains(where: { $0.hasPrefix(marker) }) { break }
        }
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.contains(where: { $0.hasPrefix(marker) }) else {
            await host.terminate()
            throw LooplError(.processFailed, "The host \(arguments.joined(separator: " ")) never printed '\(marker)': \(text.debugDescription); its log: \(host.lastLines)")
        }
        return (host, lines)
    }

    /// Kills a host mid-generation `trials` times; records how long its child took to go.
    func generationTrials() async throws -> JSONValue {
        var goneMs: [Double] = []
        var survivors: [Int32] = []
        var childCounts: [Int] = []
        for _ in 0..<trials {
            let (host, lines) = try await Self.startHost(["generate", target.rawValue], until: "generating")
            guard let line = lines.first(where: { $0.hasPrefix("child ") }), let child = Int32(line.dropFirst(6)), child > 0 else {
                await host.terminate()
                throw LooplError(.processFailed, "The host printed no child: \(lines)")
            }
            childCounts.append(ProcessWatch.children(of: host.pid).count)
            // Somewhere inside the generation, not always at its first token.
            try await Task.sleep(for: .milliseconds(Int.random(in: 0..<300)))
            guard host.exitStatus == nil, ProcessWatch.isRunning(child) else {
                throw LooplError(.processFailed, "The host or its child ended before the kill; its log: \(host.lastLines)")
            }
            host.signal(SIGKILL)
            _ = await host.waitForExit()
            let killed = ContinuousClock.now
            if await ProcessWatch.waitUntilGone(child, timeout: .seconds(5)) {
                goneMs.append(((ContinuousClock.now - killed) / .milliseconds(1) * 10).rounded() / 10)
            } else {
                survivors.append(child)
                kill(child, SIGKILL)
            }
        }
        return [
            "target": .string(target.rawValue), "trials": .integer(trials), "survivors": .integer(survivors.count),
            "survivorPids": .array(survivors.map { .integer(Int($0)) }),
            "childrenPerHost": .array(childCounts.map { .integer($0) }),
            "maxGoneMs": .double(goneMs.max() ?? 0), "meanGoneMs": .double(goneMs.isEmpty ? 0 : (goneMs.reduce(0, +) / Double(goneMs.count) * 10).rounded() / 10),
        ]
    }

    /// Kills a host mid-save `trials` times; the session file must equal one of the two contents and load.
    func saveTrials() async throws -> JSONValue {
        var old = 0
        var new = 0
        var broken: [String] = []
        var leftovers = 0
        for trial in 0..<trials {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-save-kill-\(getpid())-\(trial)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("session.json").path
            let (host, _) = try await Self.startHost(["save", file], until: "saving")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0..<100)))
            guard host.exitStatus == nil else {
                throw LooplError(.processFailed, "The saving host ended before the kill; its log: \(host.lastLines)")
            }
            host.signal(SIGKILL)
            _ = await host.waitForExit()
            let contents = FileManager.default.contents(atPath: file)
            let loads = (try? SessionFile.load(file)).map { !$0.isEmpty } ?? false
            if loads, contents == FileManager.default.contents(atPath: file + ".a") {
                old += 1
            } else if loads, contents == FileManager.default.contents(atPath: file + ".b") {
                new += 1
            } else {
                broken.append("trial \(trial + 1): \(contents?.count ?? -1) bytes, loads: \(loads)")
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            leftovers += names.filter { $0.contains(".tmp-") }.count
        }
        return [
            "target": "save", "trials": .integer(trials), "firstContent": .integer(old), "secondContent": .integer(new),
            "broken": .integer(broken.count), "brokenDetails": .array(broken.map(JSONValue.string)),
            "leftoverTemporaryFiles": .integer(leftovers),
        ]
    }
}
