// A hidden host for the lifecycle, soak and kill tests (not a user-facing program).
//
//   loopl-test-host hold [MODEL [WORKERS]] start a child llama-server (on WORKERS local RPC workers),
//                                          print "child <pid>" and the workers' pids, wait for
//                                          "exit" or the end of standard input
//   loopl-test-host soak BACKEND RUNS [N]  RUNS agent runs on one backend instance, N at once (default 1);
//                                          prints figures (JSON)
//   loopl-test-host generate BACKEND       print "child <pid>", then "generating" at the first text, and
//                                          keep generating until killed
//   loopl-test-host save FILE              save two sessions to FILE in turn, forever (FILE.a and FILE.b
//                                          hold the two expected contents); prints "saving" once FILE exists
//   loopl-test-host kill TARGET TRIALS [SEED]  SIGKILL a `generate` (TARGET server or stdio) or `save` (TARGET
//                                          save) host TRIALS times and check what it leaves; prints figures (JSON)
//                                          TARGET run: SIGKILL `loopl run --session` mid tool run, check the
//                                          session, and finish it with --resume (the `loopl` built next to this);
//                                          its kill moments come from SEED (default: a random one, printed)
//   loopl-test-host ctrl-c                 play a terminal's Ctrl-C to this host's group with a child
//                                          running; print whether the child survived it
//   loopl-test-host spawn PROGRAM [ARG...] start PROGRAM as a child, print "child <pid>" and pass on its
//                                          output; wait for "exit" or the end of standard input
//
// BACKEND is llama, server or stdio, on the default model with a tiny context.
import Foundation
import Loopl

/// Writes one line to standard output at once (no buffering: the tests read it while this runs).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("hold", 1), ("hold", 2):
        try await HostBackend.hold(modelPath: arguments.count == 2 ? arguments[1] : LooplHome.defaultModel)
    case ("hold", 3):
        guard let workers = Int(arguments[2]), workers >= 0 else { throw LooplError(.invalidRequest, "WORKERS must be a number, 0 or more.") }
        try await HostBackend.hold(modelPath: arguments[1], rpcWorkers: workers)
    case ("soak", 3), ("soak", 4):
        guard let runs = Int(arguments[2]), runs > 0 else { throw LooplError(.invalidRequest, "RUNS must be a positive number.") }
        let concurrency = arguments.count == 4 ? Int(arguments[3]) : 1
        guard let concurrency, concurrency > 0 else { throw LooplError(.invalidRequest, "N must be a positive number.") }
        let backend = try HostBackend(name: arguments[1])
        say(try await Soak(backend: backend, runs: runs, concurrency: concurrency).run().jsonText())
    case ("generate", 2):
        try await HostBackend(name: arguments[1]).generateForever()
    case ("ctrl-c", 1):
        try await CtrlCTrial.run()
    case ("spawn", let count) where count >= 2:
        try await SpawnTrial.run(arguments[1], Array(arguments.dropFirst(2)))
    case ("save", 2):
        try SaveLoop(path: arguments[1]).run()
    case ("kill", 3), ("kill", 4):
        guard let trials = Int(arguments[2]), trials > 0 else { throw LooplError(.invalidRequest, "TRIALS must be a positive number.") }
        let seed = arguments.count == 4 ? UInt64(arguments[3]) : .random(in: 0...UInt64.max)
        guard let seed else { throw LooplError(.invalidRequest, "SEED must be a whole number from 0 to 2^64 - 1.") }
        say(try await KillTrials(target: arguments[1], trials: trials, seed: seed).run().jsonText())
    default:
        throw LooplError(.invalidRequest, "Usage: loopl-test-host hold [MODEL [WORKERS]] | soak BACKEND RUNS [N] | generate BACKEND | save FILE | kill TARGET TRIALS [SEED] | ctrl-c | spawn PROGRAM [ARGUMENT...]")
    }
    exit(0)
} catch {
    FileHandle.standardError.write(Data("loopl-test-host: \(error)\n".utf8))
    exit(1)
}
