import Foundation
import Loopl
import Synchronization
import Testing

/// The library's warnings go through ``Warnings``, and no library target writes to standard error itself.
@Suite(.serialized) struct WarningsTests {
    @Test func aWarningReachesTheSinkInForceAndIsDroppedWithoutOne() async {
        let global = Mutex<[String]>([])
        let scoped = Mutex<[String]>([])
        Warnings.route(to: { message in global.withLock { $0.append(message) } })
        defer { Warnings.route(to: nil) }
        Warnings.emit("one")
        await Warnings.routing(to: { message in scoped.withLock { $0.append(message) } }) {
            Warnings.emit("two")
            await Task { Warnings.emit("three") }.value
        }
        Warnings.route(to: nil)
        Warnings.emit("dropped")
        #expect(global.withLock { $0 } == ["one"])
        #expect(scoped.withLock { $0 } == ["two", "three"])
    }

    /// The host decides where warnings go: only the `loopl` programs (and the CLI that prints
    /// them) name standard error.
    @Test func noLibraryTargetWritesToStandardError() throws {
        let hosts: Set = ["LooplCLI", "loopl", "loopl-test-host", "loopl-fuzz", "LooplFuzz"]
        var writers: [String] = []
        for file in try SourceSizeTests.swiftFiles(under: SourceSizeTests.sources) {
            let path = String(file.path.dropFirst(SourceSizeTests.sources.path.count + 1))
            guard let target = path.split(separator: "/").first, !hosts.contains(String(target)) else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            if ["FileHandle.standardError", "STDERR_FILENO", "fputs(", "write(2,"].contains(where: text.contains) {
                writers.append(path)
            }
        }
        #expect(writers.isEmpty, "send warnings through Warnings.emit instead: \(writers.sorted().joined(separator: ", "))")
    }
}
