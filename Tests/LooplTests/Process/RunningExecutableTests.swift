import Foundation
import Loopl
import Testing

/// The running binary is found through the kernel, not through the name it was started by.
@Suite struct RunningExecutableTests {
    static let probe = "LOOPL_RUNNING_EXECUTABLE_PROBE"

    @Test func itIsTheKernelsExecutable() throws {
        let expected = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(try RunningExecutable.path() == expected)
        #expect(expected.hasPrefix("/"))
    }

    /// Started through PATH as `loopl`, from a folder holding a planted `./loopl`, a copy of this
    /// test binary still names itself, not the planted file.
    @Test func aPlantedLooplInTheCurrentFolderIsNotChosen() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-exe-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "#!/bin/sh\necho planted\n".write(toFile: folder + "/loopl", atomically: false, encoding: .utf8)
        #expect(chmod(folder + "/loopl", 0o755) == 0)
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment
        environment[Self.probe] = "1"
        let child = try ChildProcess(
            executable: "/bin/bash",
            arguments: ["-c", "exec -a loopl \"$0\" --testing-library swift-testing --filter RunningExecutableTests/probe", binary],
            environment: environment, currentDirectory: folder)
        let status = await child.waitForExit()
        let lines = child.lastLines.split(separator: "\n").filter { $0.hasPrefix("running executable: ") }
        #expect(status == 0, "\(child.lastLines)")
        #expect(lines == ["running executable: \(binary)"], "\(child.lastLines)")
    }

    /// Prints what the process finds as its binary, when run as the child of the test above.
    @Test func probe() throws {
        guard ProcessInfo.processInfo.environment[Self.probe] != nil else { return }
        print("running executable: \(try RunningExecutable.path())")
    }
}

extension RunningExecutableTests {
    @Test func aMissingLinkIsAClearError() throws {
        do {
            _ = try RunningExecutable.path(link: "/proc/self/no-such-link")
            Issue.record("a missing link gave a path")
        } catch let error as LooplError {
            #expect(error.code == .processFailed)
            #expect(error.message.contains("Cannot find the running loopl binary"), "\(error.message)")
        }
    }

    @Test func aLinkToARelativePathIsRefused() throws {
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-exe-link-\(UUID())").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "loopl")
        defer { unlink(link) }
        #expect(throws: LooplError.self) { try RunningExecutable.path(link: link) }
    }
}
