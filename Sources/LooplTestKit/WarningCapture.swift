import Loopl
import Synchronization

/// Runs `body` with the library's warnings sent to a list, and returns that list.
package func captureWarnings(isolation: isolated (any Actor)? = #isolation,
                             _ body: () async throws -> Void) async rethrows -> [String] {
    let warnings = Mutex<[String]>([])
    try await Warnings.routing(to: { message in warnings.withLock { $0.append(message) } }) { try await body() }
    return warnings.withLock { $0 }
}
