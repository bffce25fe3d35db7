/// The bounds a server keeps for every connection; each has a default fit for a local API server.
package struct HTTPLimits: Sendable {
    /// The most bytes a request's line and headers may take.
    package var maxHeaderBytes = 64 * 1024
    /// The most header fields a request may carry.
    package var maxHeaderCount = 100
    /// The largest request body accepted.
    package var maxBodyBytes = 16 * 1024 * 1024
    /// The whole head must arrive within this, from its first byte (or from the connection's opening).
    package var headerTimeout: Duration = .seconds(10)
    /// The whole body must arrive within this, from the end of the head.
    package var bodyTimeout: Duration = .seconds(30)
    /// How long a keep-alive connection may idle between requests before it is closed.
    package var idleTimeout: Duration = .seconds(60)
    /// How long a connection may idle, between requests or before its first byte, while three
    /// quarters of `maxConnections` or more are open.
    package var pressureIdleTimeout: Duration = .seconds(2)
    /// The most connections open at once. One more closes the connection idle longest; when every
    /// one has a request in flight, it is answered 503 and closed.
    package var maxConnections = 256
    /// The most response bytes queued for a client; a client that reads slower is dropped.
    package var maxUnsentBytes = 8 * 1024 * 1024

    /// The defaults.
    package init() {}
}
