/// Picks the model for a run from a ``LooplConfig``: a named backend, or the default with its fallbacks.
///
/// The backends themselves live in other modules; the program that embeds Loopl hands the router
/// a factory that builds a model from a backend's config.
public struct Router: Sendable {
    /// Builds the model of one backend entry (it may load or spawn, and fail).
    public typealias Factory = @Sendable (_ name: String, _ config: BackendConfig) async throws -> any Model

    public let config: LooplConfig
    private let factory: Factory

    public init(config: LooplConfig, factory: @escaping Factory) {
        self.config = config
        self.factory = factory
    }

    /// The model for `name` (exactly that backend), or for the default route when `name` is nil:
    /// the default backend, then each fallback in turn when one fails before its first token.
    public func model(named name: String?, warn: @escaping @Sendable (String) -> Void = { _ in }) async throws -> any Model {
        if let name { return try await factory(name, try config.backend(name)) }
        let route = [config.defaultBackend] + config.fallback
        let factory = self.factory
        let config = self.config
        let candidates = route.map { name in (name, { @Sendable in try await factory(name, try config.backend(name)) }) }
        return try await FallbackModel.start(candidates, warn: warn)
    }
}
