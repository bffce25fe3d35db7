import Loopl
import LooplStdio

/// `loopl worker-check`: runs the stdio protocol's conformance checks against a worker command.
struct WorkerCheckCommand: Command {
    static let name = "worker-check"
    static let abstract = "Check that a worker command speaks the stdio protocol correctly."
    static let help = """
        Run a conformance suite against a stdio worker: handshake, streaming, cancellation,
        error shapes, several requests at once, reasoning, shutdown, and exit when its input
        closes. Prints each check with pass, FAIL or skip (a capability the worker does not
        declare, such as more than one request at once), then a last line 'N passed, M failed'
        (and ', K skipped'). Exits 0 when no check failed, 1 otherwise.

        USAGE: loopl worker-check [options] -- COMMAND [ARGS ...]

        OPTIONS:
          --initialize-timeout S   Seconds the worker may take to answer initialize, 1 to 3600 (default: 30).
          --idle-timeout S         Seconds of silence allowed during a request, 1 to 3600 (default: 30).
          -h, --help               Show this help.

        EXAMPLE:
          loopl worker-check -- python3 backends/python/worker.py

        """

    var command: [String]
    var initializeTimeout: Int
    var idleTimeout: Int

    init(arguments: inout Arguments) throws(UsageError) {
        initializeTimeout = try arguments.integer("initialize-timeout", in: 1...3600) ?? 30
        idleTimeout = try arguments.integer("idle-timeout", in: 1...3600) ?? 30
        var command: [String] = []
        while let word = arguments.positional() { command.append(word) }
        guard !command.isEmpty else { throw UsageError("Give the worker's command after '--'.") }
        self.command = command
    }

    func run(_ console: Console) async throws -> ExitCode {
        let check = WorkerCheck(command: command, initializeTimeout: .seconds(initializeTimeout), idleTimeout: .seconds(idleTimeout))
        let outcomes = await check.run { outcome in
            let word = switch outcome.verdict { case .passed: "pass"; case .failed: "FAIL"; case .skipped: "skip" }
            console.out("\(word)  \(outcome.name): \(outcome.detail)\n")
        }
        let count = { (verdict: WorkerCheck.Outcome.Verdict) in outcomes.filter { $0.verdict == verdict }.count }
        let skipped = count(.skipped)
        console.out("\(count(.passed)) passed, \(count(.failed)) failed\(skipped > 0 ? ", \(skipped) skipped" : "")\n")
        return count(.failed) == 0 ? .success : .failure
    }
}
