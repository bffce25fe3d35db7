/// Picks the model for a run from a ``LooplConfig``: a named backend, or the default with its fallbacks.
public struct Router: Sendable {
    public let config: LooplConfig

    public init(config: LooplConfig) {
        self.config = config
    }

    /// The model for `name` (exactly that backend), or for the default route when `name` is nil:
    /// the default backend, then each fallback in turn when one fails before its first token.
    public func model(named name: String?, warn: @escaping @Sendable (String) -> Void = { _ in }) async throws -> any Model {
        if let name { return try await config.backend(name).start() }
        let route = try ([config.defaultBackend] + config.fallback).map { try config.backend($0) }
        return try await FallbackModel.start(route.map { backend in (backend.name, { try await backend.start() }) }, warn: warn)
    }
}
