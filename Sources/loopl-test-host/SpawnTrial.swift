import Foundation
import Loopl

/// `spawn PROGRAM [ARGUMENT...]`: starts PROGRAM through ``ChildProcess``, prints "child <pid>",
/// then passes on what it writes to standard output, until "exit" or the end of standard input,
/// and ends it. A test SIGKILLs this host and looks for what the child started.
enum SpawnTrial {
    static func run(_ program: String, _ arguments: [String]) async throws {
        let child = try ChildProcess(executable: program, arguments: arguments, output: .stream)
        say("child \(child.pid)")
        let relay = Task {
            for await chunk in child.output { FileHandle.standardOutput.write(Data(chunk)) }
        }
        while let line = readLine(), line != "exit" {}
        await child.terminate(grace: .seconds(1))
        relay.cancel()
    }
}
