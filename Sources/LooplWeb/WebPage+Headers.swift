extension WebPage {
    /// The headers on the page and on every answer of the server: the page may load only its own
    /// files (no inline script or style, no other origin), may not be framed, is never sniffed as
    /// another type, and sends no referrer.
    package static let headers = [
        ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]
}
