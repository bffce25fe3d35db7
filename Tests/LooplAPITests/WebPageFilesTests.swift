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

    @Test func sessionsDirIsAServeSetting() throws {
        #expect(try ServeSettings(section: ["sessionsDir": "/tmp/s"]).sessionsDir == "/tmp/s")
        #expect(ServeSettings().sessionsDir == nil)
        #expect(throws: (any Error).self) { try ServeSettings(section: ["sessionsDir": 3]) }
    }
}
