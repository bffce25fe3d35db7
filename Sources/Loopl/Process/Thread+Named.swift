import Foundation

extension Thread {
    /// Runs `body` on a new thread that /proc, `top -H` and debuggers show as `name`
    /// (at most 15 bytes: Linux keeps no longer names).
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // Named from inside: on Linux a name given before `start()` is never applied.
            Thread.current.name = name
            body()
        }
        thread.start()
    }
}
