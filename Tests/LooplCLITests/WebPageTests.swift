import Foundation
import Loopl
import Testing

/// The transcript page at `/`, in a real headless Chromium (scripts/browser) driven by Selenium
/// (page_check.py) against the real `loopl serve` on the default model.
@Suite(.serialized) struct WebPageTests {
    /// Where the screenshots of each state go; scripts/update-goldens copies the README's from here.
    static let screenshots = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-web-tests").path

    static func browser() throws -> (python: String, chromium: String, driver: String) {
        let environment = ProcessInfo.processInfo.environment
        let python = environment["LOOPL_BROWSER_PYTHON"] ?? LooplHome.directory + "/browser/bin/python"
        let chromium = environment["LOOPL_CHROMIUM"] ?? "/usr/bin/chromium"
        let driver = environment["LOOPL_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
        for path in [python, chromium, driver] {
            try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is missing: run scripts/browser (it installs chromium, chromium-driver and selenium)")
        }
        return (python, chromium, driver)
    }

    static func page(_ server: ServeProcess, _ checks: [String], extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (python, chromium, driver) = try browser()
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: python)
        child.arguments = [ServeProcess.clients + "/page_check.py", "--url", "http://127.0.0.1:\(server.port)/", "--chromium", chromium,
                           "--driver", driver, "--screenshots", screenshots] + extra + checks
        let pipe = Pipe()
        child.standardOutput = pipe
        child.standardError = pipe
        try child.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        #expect(child.terminationStatus == 0, "page_check.py \(checks.joined(separator: " ")):\n\(output)", sourceLocation: sourceLocation)
        for name in checks {
            #expect(output.contains("ok \(name):"), "no 'ok \(name):' in:\n\(output)", sourceLocation: sourceLocation)
        }
    }

    /// The page folds as the Swift transcript does, asks no other origin, and its picker says each model's state.
    @Test(.timeLimit(.minutes(5)))
    func thePagesFoldingMatchesTheSwiftTranscript() throws {
        try ServeTests.requireModel()
        let cases = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-folding-\(UUID()).json").path
        try TranscriptFoldingCases.json().jsonText().write(toFile: cases, atomically: true, encoding: .utf8)
        let server = try ServeProcess([], config: try ServeProcess.llamaConfig())
        try Self.page(server, ["folding", "offline", "picker", "console"], extra: ["--cases", cases])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(30)))
    func theCalculatorDemoReloadAndStopInTheBrowser() throws {
        try ServeTests.requireModel()
        let sessions = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-sessions-\(UUID())").path
        let server = try ServeProcess([], config: try ServeProcess.llamaConfig(parallel: 2, serve: ["sessionsDir": .string(sessions)]))
        try Self.page(server, ["calculator", "reload", "stop", "console"])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(30)))
    func denyGivesTheErrorResultAndApproveRunsTheTool() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess([], config: try ServeProcess.askingConfig())
        try Self.page(server, ["approval", "console"])
        #expect(server.stop().status == 0)
    }

    /// On the scripted worker: HTML in the prompt (the session's title), in a file the files tool
    /// reads and in the answer shows as text and runs nothing; and "Approve for this run" on the
    /// calculator's card lets its later call run unasked, while current_time is asked about each time.
    @Test(.timeLimit(.minutes(5)))
    func untrustedTextIsShownAsTextAndApprovingForTheRunIsPerTool() throws {
        let folder = try ScriptedWorker.folder("page")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hostile = #"<img src=x onerror="window.pwned=1">"#
        try hostile.write(toFile: folder + "/page.html", atomically: true, encoding: .utf8)
        let both: JSONValue = ["toolCalls": [["name": "calculator", "arguments": ["expression": "2+2"]], ["name": "current_time", "arguments": [:]]]]
        let turns: [JSONValue] = [ScriptedWorker.call("read_file", ["path": "page.html"]), ["chunks": [.string(hostile), " is what it holds."]],
                                  both, both, ["chunks": ["Done."]]]
        let config = try ScriptedWorker.config(in: folder, turns: turns, extra: [
            "tools": ["calc": ["approval": "ask"], "time": ["approval": "ask"]], "serve": ["sessionsDir": .string(folder + "/sessions")]])
        let server = try ServeProcess([], config: config, in: folder)
        try Self.page(server, ["untrusted", "run-button", "console"])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func thePageAsksForTheKeyOnce() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig())
        try Self.page(server, ["key"], extra: ["--key", "secret"])
        #expect(server.stop().status == 0)
    }
}
