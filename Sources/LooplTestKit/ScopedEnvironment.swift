import Foundation

/// Runs `body` with the environment variables `values` set (a nil value unsets one), then puts
/// back what each one was before, set or unset. The environment is the whole process's: these
/// scopes run one at a time, so two tests that set variables never see each other's values; a
/// scope inside another one's body runs within its turn.
package func withEnvironment<T>(_ values: [String: String?], isolation: isolated (any Actor)? = #isolation,
                                _ body: () async throws -> T) async rethrows -> T {
    let nested = EnvironmentScope.holding
    if !nested { await EnvironmentScope.lock.acquire() }
    let saved = values.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
    EnvironmentScope.apply(values.map { ($0.key, $0.value) })
    defer {
        EnvironmentScope.apply(saved)
        if !nested { EnvironmentScope.lock.release() }
    }
    return try await EnvironmentScope.$holding.withValue(true) { try await body() }
}

/// The lock that makes environment scopes take turns, and the writes themselves.
enum EnvironmentScope {
    static let lock = TurnLock()
    /// True in the body of a scope, which holds the lock.
    @TaskLocal static var holding = false

    static func apply(_ values: [(String, String?)]) {
        for (name, value) in values {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
}
