import Foundation
import Loopl
import LooplCLI

#if canImport(Glibc)
import Glibc
#endif

// Warnings from tasks that a command does not start itself (a server's connections) go to stderr too.
Warnings.route(to: { message in FileHandle.standardError.write(Data("loopl: warning: \(message)\n".utf8)) })
let status = await CLI.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
