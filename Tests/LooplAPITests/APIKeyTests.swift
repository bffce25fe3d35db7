@testable import LooplAPI
import Testing

@Suite struct APIKeyTests {
    let key = APIKey("sk-local-1234")!

    @Test func bearerInAnyCaseAndXAPIKeyAreAccepted() {
        #expect(key.accepts(authorization: "Bearer sk-local-1234", xAPIKey: nil))
        #expect(key.accepts(authorization: "bearer sk-local-1234", xAPIKey: nil))
        #expect(key.accepts(authorization: "BEARER   sk-local-1234 ", xAPIKey: nil))
        #expect(key.accepts(authorization: nil, xAPIKey: "sk-local-1234"))
        #expect(key.accepts(authorization: "Bearer wrong", xAPIKey: "sk-local-1234"))
    }

    @Test func wrongMissingAndPartialKeysAreRefused() {
        #expect(!key.accepts(authorization: nil, xAPIKey: nil))
        #expect(!key.accepts(authorization: "Bearer sk-local-1235", xAPIKey: nil))
        #expect(!key.accepts(authorization: "Bearer sk-local-123", xAPIKey: nil))
        #expect(!key.accepts(authorization: "Bearer sk-local-12345", xAPIKey: nil))
        #expect(!key.accepts(authorization: "Bearer ", xAPIKey: ""))
        #expect(!key.accepts(authorization: "Basic sk-local-1234", xAPIKey: nil))
        #expect(!key.accepts(authorization: "sk-local-1234", xAPIKey: nil))
        #expect(!key.accepts(authorization: "Bearersk-local-1234", xAPIKey: nil))
        #expect(!key.accepts(authorization: nil, xAPIKey: "sk-local"))
        #expect(!key.accepts(authorization: nil, xAPIKey: "SK-LOCAL-1234"))
    }

    @Test func anEmptyKeyGuardsNothingAndIsRefused() {
        #expect(APIKey("") == nil)
        #expect(APIKey("  ") == nil)
    }

    @Test func theKeyNeverShows() {
        #expect("\(key)" == "APIKey(redacted)")
        #expect(String(reflecting: key) == "APIKey(redacted)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("1234"))
    }
}
