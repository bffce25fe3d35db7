import Foundation
import Loopl
import LooplHTTP
@testable import LooplServer
import Testing

/// A password or a query token in a server's URL never appears in a message.
@Suite struct URLRedactionTests {
    @Test func passwordsAndQueryValuesAreHidden() throws {
        let url = try #require(URL(string: "http://user:hunter2@example.com:8080/v1/models?token=abc123&x"))
        #expect(url.redacted == "http://user:***@example.com:8080/v1/models?token=***&x")
        #expect(try #require(URL(string: "http://127.0.0.1:8080/v1")).redacted == "http://127.0.0.1:8080/v1")
        #expect(URL.redacting("http://user:hunter2@[bad/x?token=abc123") == "http://***@[bad/x?***")
    }

    @Test func errorMessagesCarryNoSecret() throws {
        let url = try #require(URL(string: "http://user:hunter2@127.0.0.1:1/v1/chat/completions?token=abc123"))
        let errors = [
            ServerFailure.http(status: 404, body: Data(), url: url),
            ServerFailure.http(status: 401, body: Data(), url: url),
            ServerFailure.connection(HTTPTransportError.timedOut, url: url),
        ]
        for error in errors {
            #expect(!error.message.contains("hunter2") && !error.message.contains("abc123"), "\(error.message)")
        }
        #expect(errors[0].message.contains("http://user:***@127.0.0.1:1/v1/chat/completions?token=***"))
    }

    @Test func aConfigURLThatDoesNotParseIsShownRedacted() {
        var reader = ConfigSection(["kind": "server", "url": "http://user:hunter2@[bad?token=abc123"], context: "backend 's'")
        reader.accept("kind")
        do {
            _ = try LlamaServerModel.configuration(from: &reader)
            Issue.record("accepted")
        } catch let error as LooplError {
            #expect(error.code == .invalidConfiguration)
            #expect(!error.message.contains("hunter2") && !error.message.contains("abc123"), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
