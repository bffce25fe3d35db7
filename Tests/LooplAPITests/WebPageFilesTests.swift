import Foundation
import LooplAPI
import LooplWeb
import Testing

@Suite struct WebPageFilesTests {
    @Test func everyFileIsBuiltInAndThePageStaysSmall() throws {
        var total = 0
        for path in WebPage.paths {
            let file = try #require(WebPage.file(at: path), "\(path)")
            #expect(!file.bytes.isEmpty, "\(path)")
            total += file.bytes.count
        }
        #expect(total < 150 * 1024, "the page weighs \(total) bytes")
        #expect(WebPage.file(at: "/favicon.ico")?.contentType == "image/svg+xml")
        #expect(WebPage.file(at: "/v1/models") == nil && WebPage.file(at: "/app.js/") == nil)
    }

    @Test func thePageLinksNothingOutside() throws {
        let html = String(decoding: try #require(WebPage.file(at: "/")).bytes, as: UTF8.self)
        for link in ["href=\"/style.css\"", "href=\"/favicon.svg\"", "src=\"/app.js\""] {
            #expect(html.contains(link), "\(link)")
        }
        for page in WebPage.paths {
            let text = String(decoding: try #require(WebPage.file(at: page)).bytes, as: UTF8.self)
            #expect(!text.contains("http://") && !text.contains("https://") || page == "/favicon.svg", "\(page) names another origin")
        }
    }

    /// The page runs under `script-src 'self'`: every script is a file of its own, and each is short.
    @Test func scriptsAreFilesOfTheirOwn() throws {
        let html = String(decoding: try #require(WebPage.file(at: "/")).bytes, as: UTF8.self)
        let tags = html.components(separatedBy: "<script").dropFirst()
        let empty = #"^ type="module" src="/[a-z]+\.js"></script>"#
        #expect(!tags.isEmpty && tags.allSatisfy { $0.range(of: empty, options: .regularExpression) != nil }, "\(html)")
        #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "an inline handler in \(html)")
        for page in WebPage.paths where page.hasSuffix(".js") {
            let lines = String(decoding: try #require(WebPage.file(at: page)).bytes, as: UTF8.self).split(separator: "\n").count
            #expect(lines <= 250, "\(page) has \(lines) lines")
        }
        #expect(WebPage.paths.filter { $0.hasSuffix(".js") } == ["/app.js", "/api.js", "/view.js", "/transcript.js"])
    }

    @Test func sessionsDirIsAServeSetting() throws {
        #expect(try ServeSettings(section: ["sessionsDir": "/tmp/s"]).sessionsDir == "/tmp/s")
        #expect(ServeSettings().sessionsDir == nil)
        #expect(throws: (any Error).self) { try ServeSettings(section: ["sessionsDir": 3]) }
    }
}
