@testable import LooplAPI
import Loopl
import LooplHTTP
import Testing

@Suite struct CORSPolicyTests {
    static func request(origin: String?, preflight: Bool = false) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let origin { headers.append(name: "Origin", value: origin) }
        if preflight { headers.append(name: "Access-Control-Request-Method", value: "POST") }
        return HTTPRequest(method: preflight ? "OPTIONS" : "GET", target: "/v1/models", headers: headers)
    }

    @Test func onlyListedOriginsGetHeadersAndAKeyedServerNamesTheOrigin() {
        let listed = CORSPolicy(origins: ["http://app.example"], keyed: true)
        #expect(listed.headers(for: Self.request(origin: "http://app.example")).first?.1 == "http://app.example")
        #expect(listed.headers(for: Self.request(origin: "http://other.example")).isEmpty)
        #expect(listed.headers(for: Self.request(origin: nil)).isEmpty)
        #expect(CORSPolicy(origins: ["*"], keyed: true).allowed("http://x.example") == "http://x.example")
        #expect(CORSPolicy(origins: ["*"], keyed: false).allowed("http://x.example") == "*")
        #expect(CORSPolicy(origins: [], keyed: false).allowed("http://x.example") == nil)
        #expect(CORSPolicy.isPreflight(Self.request(origin: "http://app.example", preflight: true)))
        #expect(!CORSPolicy.isPreflight(Self.request(origin: "http://app.example")))
    }

    @Test func theServeObjectReadsOriginsAndMetricsPublic() throws {
        let settings = try ServeSettings(section: ["corsOrigins": ["https://app.example.com:8443", "*"], "metricsPublic": true])
        #expect(settings.corsOrigins == ["https://app.example.com:8443", "*"])
        #expect(settings.metricsPublic)
        #expect(ServeSettings().corsOrigins.isEmpty && !ServeSettings().metricsPublic)
        for bad: JSONValue in ["https://app.example.com/path", "app.example.com", "http://", "http://a b"] {
            let error = #expect(throws: LooplError.self) { try ServeSettings(section: ["corsOrigins": [bad]]) }
            #expect(error?.message.contains("corsOrigins") == true, "\(String(describing: error))")
        }
        #expect(throws: LooplError.self) { try ServeSettings(section: ["metricsPublic": "yes"]) }
    }
}
