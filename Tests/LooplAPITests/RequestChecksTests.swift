import Foundation
@testable import LooplAPI
import Loopl
import LooplHTTP
import LooplWeb
import Testing

/// The checks before every endpoint: the host, the browser's origin, the body's type, and the
/// headers on every answer.
@Suite struct RequestChecksTests {
    static func request(_ headers: [(String, String)], method: HTTPMethod = .get, target: String = "/v1/models",
                        version: HTTPVersion = .http1_1, body: String = "") -> HTTPRequest {
        HTTPRequest(method: method, target: target, version: version, headers: HTTPHeaders(headers), body: Array(body.utf8))
    }

    static let hosts = HostCheck(listening: "127.0.0.1", allowed: [])

    @Test func theServerAnswersToItsOwnNamesOnItsPortOnly() {
        for host in ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "LocalHost:8080", " localhost:8080 "] {
            #expect(Self.hosts.accepts(host, port: 8080), "\(host)")
        }
        for host in ["localhost", "localhost:8081", "127.0.0.1", "evil.example:8080", "127.0.0.1.evil.example:8080", "localhost.:8080",
                     "[::2]:8080", "::1:8080", "localhost:8080@evil", "localhost:08080x", "", ":8080", "[::1", "localhost:99999"] {
            #expect(!Self.hosts.accepts(host, port: 8080), "\(host)")
        }
        #expect(Self.hosts.accepts("localhost", port: 80) && Self.hosts.accepts("localhost:", port: 80))
        let v6 = HostCheck(listening: "FD00::5", allowed: [])
        #expect(v6.accepts("[fd00::5]:8080", port: 8080) && !v6.accepts("[fd00::6]:8080", port: 8080))
        let lan = HostCheck(listening: "192.168.1.5", allowed: [])
        #expect(lan.accepts("192.168.1.5:8080", port: 8080) && !lan.accepts("192.168.1.6:8080", port: 8080))
    }

    @Test func onEveryAddressItAnswersToTheInterfaces() {
        for any in ["0.0.0.0", "::", "0:0::0"] {
            let check = HostCheck(listening: any, allowed: []) { ["10.1.2.3", "fe80::1", "127.0.0.1"] }
            #expect(check.accepts("10.1.2.3:8080", port: 8080) && check.accepts("[fe80::1]:8080", port: 8080), "\(any)")
            #expect(!check.accepts("10.1.2.4:8080", port: 8080), "\(any)")
        }
        let loopback = HostCheck(listening: "127.0.0.1", allowed: []) { ["10.1.2.3"] }
        #expect(!loopback.accepts("10.1.2.3:8080", port: 8080))
        let real = InterfaceAddresses.all()
        #expect(real.contains("127.0.0.1"), "\(real)")
        #expect(!InterfaceAddresses.isUnspecified("127.0.0.1") && !InterfaceAddresses.isUnspecified("localhost"))
    }

    @Test func allowedHostsTakeTheirNameWithAnyPortAndStarTakesAll() {
        let check = HostCheck(listening: "127.0.0.1", allowed: ["Proxy.Example", "host.docker.internal"])
        for host in ["proxy.example", "proxy.example:443", "PROXY.example:8080", "host.docker.internal:8080"] {
            #expect(check.accepts(host, port: 8080), "\(host)")
        }
        #expect(!check.accepts("other.proxy.example", port: 8080) && !check.accepts("proxy.example.evil", port: 8080))
        let any = HostCheck(listening: "127.0.0.1", allowed: ["*"])
        #expect(any.accepts("evil.example:1", port: 8080) && !any.accepts("evil.example:1", port: 8080, wildcard: false))
    }

    @Test func aForeignHostIs421AndAMissingOrDoubleOne400() {
        let refusal = { (request: HTTPRequest) in Self.hosts.refusal(request, to: RouteTraits(), port: 8080) }
        let foreign = refusal(Self.request([("Host", "rebind.evil.example:8080")]))
        #expect(foreign?.status == 421 && foreign?.message.contains("serve.allowedHosts") == true)
        #expect(refusal(Self.request([("Host", "localhost:8080")], target: "http://evil.example:8080/v1/models"))?.status == 421)
        #expect(refusal(Self.request([("Host", "localhost:8080")], target: "http://localhost:8080/v1/models")) == nil)
        #expect(refusal(Self.request([]))?.status == 400)
        #expect(refusal(Self.request([], version: .http1_0)) == nil)
        #expect(refusal(Self.request([("Host", "localhost:8080"), ("Host", "evil.example")]))?.status == 400)
        #expect(refusal(Self.request([("Host", "localhost:8080")])) == nil)
    }

    static let browsers = BrowserCheck(hosts: hosts, origins: ["https://app.example.com", "vscode-webview://abc"])

    @Test func aPageOfAnotherSiteIsRefusedAndItsOwnPasses() {
        let refusal = { (headers: [(String, String)]) in
            Self.browsers.refusal(Self.request([("Host", "localhost:8080")] + headers), to: RouteTraits(), port: 8080)
        }
        for headers in [[("Sec-Fetch-Site", "cross-site")], [("Sec-Fetch-Site", "same-site")], [("Sec-Fetch-Site", "CROSS-SITE")],
                        [("Origin", "null")], [("Origin", "http://evil.example")], [("Origin", "http://localhost:8081")],
                        [("Origin", "http://localhost")], [("Origin", "app://other")], [("Origin", "vscode-webview://xyz")],
                        [("Origin", "http://localhost:8080/x")], [("Origin", "http://localhost:8080"), ("Origin", "http://evil.example")],
                        [("Origin", "http://localhost:8080"), ("Sec-Fetch-Site", "cross-site")]] {
            #expect(refusal(headers)?.status == 403, "\(headers)")
        }
        for headers in [[], [("Sec-Fetch-Site", "same-origin")], [("Sec-Fetch-Site", "none")], [("Origin", "http://localhost:8080")],
                        [("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin")], [("Origin", "http://[::1]:8080")],
                        [("Origin", "https://app.example.com"), ("Sec-Fetch-Site", "cross-site")], [("Origin", "vscode-webview://abc")]] {
            #expect(refusal(headers) == nil, "\(headers)")
        }
        let any = BrowserCheck(hosts: HostCheck(listening: "127.0.0.1", allowed: ["*"]), origins: ["*"])
        #expect(any.refusal(Self.request([("Origin", "null")]), to: RouteTraits(), port: 8080)?.status == 403)
        #expect(any.refusal(Self.request([("Origin", "http://evil.example")]), to: RouteTraits(), port: 8080) == nil)
        let rebound = BrowserCheck(hosts: HostCheck(listening: "127.0.0.1", allowed: ["*"]), origins: [])
        #expect(rebound.refusal(Self.request([("Origin", "http://evil.example:8080")]), to: RouteTraits(), port: 8080)?.status == 403)
    }

    @Test func aBodyMustBeDeclaredJSONUnlessTheRouteReadsForms() {
        let refusal = { (type: String?, bodies: RouteTraits.Bodies) in
            JSONBodyCheck().refusal(Self.request(type.map { [("Content-Type", $0)] } ?? [], method: "POST", body: "{}"),
                                    to: RouteTraits(bodies: bodies), port: 8080)
        }
        for type in ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", " application/json "] {
            #expect(refusal(type, .json) == nil, "\(type)")
        }
        for type in ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                     "application/jsonx", "", nil] as [String?] {
            let error = refusal(type, .json)
            #expect(error?.status == 415 && error?.message.contains("Content-Type: application/json") == true, "\(String(describing: type))")
        }
        #expect(refusal(nil, .jsonOrForm) == nil && refusal("application/x-www-form-urlencoded", .jsonOrForm) == nil)
        #expect(refusal("text/plain", .jsonOrForm)?.status == 415)
        #expect(JSONBodyCheck().refusal(Self.request([("Content-Type", "text/plain")], method: "POST"), to: RouteTraits(), port: 8080) == nil)
    }

    @Test func allowedHostsAreNamesWithoutAPort() throws {
        #expect(try ServeSettings(section: ["allowedHosts": ["proxy.example", "[fd00::1]", "10.0.0.2", "*"]]).allowedHosts.count == 4)
        #expect(ServeSettings().allowedHosts.isEmpty)
        for bad: JSONValue in ["proxy.example:8080", "http://proxy.example", "proxy.example/", "fd00::1", "", "a b", "proxy.example:"] {
            let error = #expect(throws: LooplError.self) { try ServeSettings(section: ["allowedHosts": [bad]]) }
            #expect(error?.message.contains("allowedHosts") == true, "\(bad)")
        }
    }

    @Test func thePageLoadsOnlyItsOwnFilesAndCannotBeFramed() throws {
        let headers = Dictionary(uniqueKeysWithValues: WebPage.headers)
        let policy = try #require(headers["Content-Security-Policy"])
        for part in ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"] {
            #expect(policy.contains(part), "\(part)")
        }
        #expect(!policy.contains("unsafe") && !policy.contains("*") && !policy.contains("data:"))
        #expect(headers["X-Content-Type-Options"] == "nosniff" && headers["Referrer-Policy"] == "no-referrer")
        let html = String(decoding: try #require(WebPage.file(at: "/")).bytes, as: UTF8.self).lowercased()
        #expect(!html.contains("<style") && !html.contains(" style=") && !html.contains("javascript:"))
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "an inline event handler")
        let scripts = html.components(separatedBy: "<script").dropFirst()
        #expect(scripts.allSatisfy { $0.prefix { $0 != ">" }.contains("src=") }, "an inline script")
    }
}
