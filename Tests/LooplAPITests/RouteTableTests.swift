import Foundation
@testable import LooplAPI
import Loopl
import LooplHTTP
import Testing

/// `loopl serve`'s one route table: what it matches, the 404 and the 405 it makes, and the docs
/// and help that list its routes.
@Suite struct RouteTableTests {
    static let table = RouteTable.serve()

    static func resolve(_ method: String, _ target: String, in table: RouteTable = table) -> RouteTable.Resolution {
        table.resolve(HTTPRequest(method: method, target: target, version: "HTTP/1.1", headers: HTTPHeaders([]), body: []))
    }

    /// The route and parameters `method target` reaches, or the refusal's status.
    static func reach(_ method: String, _ target: String) -> (route: String, parameters: [String: String])? {
        guard case .route(let route, let routed) = resolve(method, target).outcome else { return nil }
        return ("\(route.methods[0]) \(route.pattern)", routed.parameters)
    }

    static func refusal(_ method: String, _ target: String) -> APIError? {
        guard case .refusal(let error) = resolve(method, target).outcome else { return nil }
        return error
    }

    @Test func pathsWithParametersReachTheirRouteWithTheSegmentsDecoded() {
        #expect(Self.reach("GET", "/v1/models/qwen3")?.parameters == ["id": "qwen3"])
        #expect(Self.reach("GET", "/v1/models/Qwen%2FQwen3-8B")?.parameters == ["id": "Qwen/Qwen3-8B"])
        #expect(Self.reach("GET", "/v1/models/Qwen/Qwen3-8B")?.parameters == ["id": "Qwen/Qwen3-8B"])
        #expect(Self.reach("GET", "/v1/responses/resp_abc")?.route == "GET /v1/responses/{id}")
        #expect(Self.reach("DELETE", "/v1/responses/resp_abc")?.route == "DELETE /v1/responses/{id}")
        #expect(Self.reach("POST", "/loopl/v1/runs/run_1/approvals/call_2")?.parameters == ["id": "run_1", "callId": "call_2"])
        #expect(Self.reach("POST", "/loopl/v1/runs/run_1/cancel")?.parameters == ["id": "run_1"])
        #expect(Self.reach("GET", "/v1/models")?.route == "GET /v1/models")
        #expect(Self.reach("GET", "/v1/models")?.parameters == [:])
    }

    @Test func everyPathAnswersWithAndWithoutV1() {
        #expect(Self.reach("POST", "/chat/completions")?.route == "POST /v1/chat/completions")
        #expect(Self.reach("GET", "/models/qwen3")?.parameters == ["id": "qwen3"])
        #expect(Self.reach("GET", "/v1/health")?.route == "GET /health")
        #expect(Self.reach("POST", "/loopl/v1/runs")?.route == "POST /loopl/v1/runs")
    }

    @Test func aPathNoRouteTakesIsA404InItsFamilysShape() throws {
        let nowhere = try #require(Self.refusal("GET", "/nowhere"))
        #expect(nowhere.status == 404 && nowhere.code == "unknown_url")
        #expect(Self.resolve("GET", "/nowhere").traits.needsKey)
        #expect(Self.refusal("POST", "/loopl/v1/runs/run_1/cancel/again")?.status == 404)
        #expect(Self.refusal("GET", "/v1/models/")?.status == nil, "an empty id is the model route's own 404")
        let ollama = Self.resolve("GET", "/api/nowhere")
        #expect(ollama.traits.errors == .ollama && ollama.traits.needsKey)
        #expect(Self.refusal("GET", "/api/nowhere")?.status == 404)
        #expect(Self.refusal("POST", "/api/pull")?.status == 501)
        #expect(Self.resolve("POST", "/v1/messages/batches").traits.errors == .anthropic)
    }

    @Test func aRoutesPathWithAnotherMethodIsA405ThatAllowsEveryMethodOfThePath() throws {
        let put = try #require(Self.refusal("PUT", "/v1/models"))
        #expect(put.status == 405 && put.headers.contains { $0 == ("Allow", "GET") })
        let post = try #require(Self.refusal("POST", "/v1/responses/resp_abc"))
        #expect(post.status == 405 && post.headers.contains { $0 == ("Allow", "GET, DELETE") })
        #expect(Self.refusal("PATCH", "/loopl/v1/sessions/abc")?.headers.contains { $0 == ("Allow", "GET, DELETE") } == true)
        #expect(Self.refusal("POST", "/api/tags")?.headers.contains { $0 == ("Allow", "GET, HEAD") } == true)
        #expect(Self.resolve("GET", "/api/chat").traits.errors == .ollama)
        #expect(Self.resolve("GET", "/v1/messages").traits.errors == .anthropic)
        #expect(Self.reach("HEAD", "/api/tags")?.route == "GET /api/tags")
    }

    @Test func theKeyIsAskedOfEveryRouteButHealthMetricsWhenPublicAndThePage() {
        #expect(!Self.resolve("GET", "/health").traits.needsKey)
        #expect(!Self.resolve("GET", "/").traits.needsKey && !Self.resolve("GET", "/app.js").traits.needsKey)
        #expect(Self.resolve("GET", "/metrics").traits.needsKey)
        #expect(!Self.resolve("GET", "/metrics", in: .serve(metricsPublic: true)).traits.needsKey)
        #expect(Self.resolve("POST", "/v1/chat/completions").traits.needsKey)
    }

    /// The rows of docs/serve.md's endpoint tables name exactly the table's listed routes (each by
    /// its first method), and help has a line for each.
    @Test func docsAndHelpListEveryRouteOfTheTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/serve.md"), encoding: .utf8)
        let listed = Set(Self.table.routes.filter { $0.summary != nil }.map { "\($0.methods[0]) \($0.pattern)" })
        let documented = Self.documented(docs)
        #expect(listed.subtracting(documented).isEmpty, "docs/serve.md lacks \(listed.subtracting(documented).sorted())")
        let unknown = documented.filter { Self.reach(String($0.prefix { $0 != " " }), String($0.drop { $0 != " " }.dropFirst())) == nil }
        #expect(unknown.isEmpty, "docs/serve.md names \(unknown.sorted()), which no route takes")
        let help = APIServer.endpointList.split(separator: "\n")
        #expect(help.count == listed.count)
        for route in Self.table.routes where route.summary != nil {
            #expect(help.contains { $0.contains(" \(route.pattern)  ") && $0.contains(route.methods[0]) }, "help lacks \(route.pattern)")
        }
    }

    /// Every `` `METHOD /path` `` in a table row of `text`.
    static func documented(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").filter { $0.hasPrefix("| `") }
            .flatMap { $0.matches(of: /`((?:GET|POST|DELETE|HEAD|PUT|PATCH) \/[^`]*)`/).map { String($0.output.1) } })
    }

    @Test func theDocsReaderSeesEveryRowAndOnlyRows() {
        let text = "| `GET /a`, `HEAD /a` | x `POST /c` |\nsee `GET /b`\n| Endpoint | `DELETE /d/{id}` |"
        #expect(Self.documented(text) == ["GET /a", "HEAD /a", "POST /c"])
    }
}
