extension Mailbox {
    /// Reads `child`'s output into this mailbox, line by line, in a task of its own: `route`
    /// handles each line and returns what is wrong with it, which ends the mailbox and the child.
    /// The mailbox ends with the child's exit when its output closes.
    package func read(from child: ChildProcess, route: @escaping @Sendable (LineSplitter.Piece) -> String?) {
        Task.detached {
            var splitter = LineSplitter()
            var broken = false
            for await chunk in child.output where !broken {
                for piece in splitter.feed(chunk) where !broken {
                    if let problem = route(piece) {
                        broken = true
                        self.finish(.violation(problem))
                        await child.terminate(grace: .seconds(1))
                    }
                }
            }
            if !broken, !splitter.remainder.isEmpty {
                self.finish(.violation("it ended its output with a line that has no newline"))
                return
            }
            self.finish(.exited(await child.waitForExit(timeout: .seconds(2))))
        }
    }
}
