import Loopl

/// A row of a `--workload` that runs on models loaded side by side: its name, and how its model
/// is started.
struct WorkloadRow: Sendable {
    let name: String
    let open: @Sendable () async throws -> any Model

    /// Starts every row's model, runs `body` on them, and closes them, also when a start or
    /// `body` fails.
    static func running<T>(_ rows: [WorkloadRow], _ body: ([any Model]) async throws -> T) async throws -> T {
        var models: [any Model] = []
        do {
            for row in rows { models.append(try await row.open()) }
            let result = try await body(models)
            for model in models { await model.close() }
            return result
        } catch {
            for model in models { await model.close() }
            throw error
        }
    }
}
