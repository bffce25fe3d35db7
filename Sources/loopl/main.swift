import LooplCLI

#if canImport(Glibc)
import Glibc
#endif

let status = await CLI.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
