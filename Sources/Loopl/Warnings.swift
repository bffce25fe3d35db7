import Synchronization

/// The library's one channel for warnings (a risky setting, a deprecated configuration key): the
/// library never writes to standard error itself. A host routes the warnings where its user reads
/// them, as `loopl` does to standard error; until then they are dropped.
package enum Warnings {
    /// Receives each warning: one or more sentences, without a "warning:" prefix or a newline.
    package typealias Sink = @Sendable (String) -> Void

    private static let global = Mutex<Sink?>(nil)
    @TaskLocal private static var scoped: Sink?

    /// Sends every warning to `sink` from now on; nil drops them.
    package static func route(to sink: Sink?) {
        global.withLock { $0 = sink }
    }

    /// Runs `body` with the warnings of its task (and the tasks it starts) sent to `sink` instead.
    package static func routing<T>(to sink: @escaping Sink, isolation: isolated (any Actor)? = #isolation,
                                  _ body: () async throws -> T) async rethrows -> T {
        try await $scoped.withValue(sink, operation: body)
    }

    /// Sends `message` to the sink in force.
    package static func emit(_ message: String) {
        (scoped ?? global.withLock { $0 })?(message)
    }
}
