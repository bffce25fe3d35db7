// A host for LooplServerTests: starts a child llama-server, prints "child <pid>", then waits.
// It exits normally when its standard input closes or says "exit"; tests also signal or kill it.
import Foundation
import Loopl
import LooplServer

let path = CommandLine.arguments.dropFirst().first ?? LooplHome.defaultModel
let model = LlamaServerModel(path: path, contextLength: 256, threads: 1)
do {
    try await model.start()
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("child \(await model.serverProcessID ?? -1)\n".utf8))
while let line = readLine(), line != "exit" {}
exit(0)
