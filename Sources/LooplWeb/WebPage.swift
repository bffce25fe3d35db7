/// The transcript page that `loopl serve` serves at `/`: plain HTML, CSS and JavaScript modules,
/// built into the binary, so that it works offline and needs no key.
package enum WebPage {
    /// One file of the page.
    package struct File: Sendable {
        package let contentType: String
        package let bytes: [UInt8]
    }

    /// The page's file served at `path` (`/` is the page itself), nil for any other path.
    package static func file(at path: String) -> File? {
        switch path {
        case "/", "/index.html": File(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html)
        case "/app.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.app_js)
        case "/api.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.api_js)
        case "/view.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.view_js)
        case "/transcript.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.transcript_js)
        case "/style.css": File(contentType: "text/css; charset=utf-8", bytes: PackageResources.style_css)
        case "/favicon.svg", "/favicon.ico": File(contentType: "image/svg+xml", bytes: PackageResources.favicon_svg)
        default: nil
        }
    }

    /// Every path ``file(at:)`` answers, once each.
    package static let paths = ["/", "/app.js", "/api.js", "/view.js", "/transcript.js", "/style.css", "/favicon.svg"]

    /// Every path ``file(at:)`` answers: ``paths`` and the other names of two of them.
    package static let addresses = paths + ["/index.html", "/favicon.ico"]
}
