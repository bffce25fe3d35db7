import Foundation
import Loopl

extension LlamaServerModel: EmbeddingModel {
    /// The server's `/v1/embeddings` for `inputs`, when ``Configuration/embeddings`` is on; else
    /// ``LooplError/cannotEmbed(_:)`` naming that key. With `truncate`, each input is tokenized by
    /// the server (`/tokenize`, llama-server's) and cut to its context first.
    public func embed(_ inputs: [String], truncate: Bool) async throws -> Embeddings {
        guard configuration.embeddings else {
            throw LooplError.cannotEmbed("this server backend has no \"embeddings\": true in its configuration (which starts llama-server with --embeddings, or sends an attached server's /v1/embeddings).")
        }
        let session = self.session
        let timeout = configuration.idleTimeout.seconds
        return try await session.queue.withPlace {
            let lease = try await session.lease(conversation: nil, prompt: "")
            do {
                let embeddings = try await Self.embed(inputs, truncate: truncate, on: lease.info, timeout: timeout)
                await session.release(lease)
                return embeddings
            } catch {
                await session.release(lease)
                throw error
            }
        }
    }

    /// The server's vectors of `inputs`, each first tokenized and cut to the context with `truncate`.
    private static func embed(_ inputs: [String], truncate: Bool, on info: ServerInfo, timeout: TimeInterval) async throws -> Embeddings {
        let endpoint = info.endpoint
        var input = JSONValue.array(inputs.map(JSONValue.string))
        if truncate, let context = info.contextSize {
            input = .array(try await inputs.asyncMap { text in
                let answer = try await endpoint.fetch("/tokenize", method: "POST", body: ["content": .string(text), "add_special": true], timeout: timeout)
                guard answer.status == 200, let tokens = answer.json["tokens"]?.arrayValue else {
                    throw ServerFailure.http(status: answer.status, body: Data(answer.text.utf8), url: endpoint.baseURL)
                }
                return .array(Array(tokens.prefix(context)))
            })
        }
        let answer = try await endpoint.fetch("/v1/embeddings", method: "POST", body: ["input": input, "encoding_format": "float"], timeout: timeout)
        guard answer.status == 200 else {
            let error = ServerFailure.http(status: answer.status, body: Data(answer.text.utf8), url: endpoint.baseURL)
            guard error.message.contains("too large") else { throw error }
            throw LooplError(.contextOverflow, "An input is longer than the server's context (\(error.message)): shorten it, or ask for truncation (truncate).")
        }
        return try embeddings(answer.json, count: inputs.count)
    }

    /// The vectors of an OpenAI embeddings answer, by `index`, normalised.
    static func embeddings(_ json: JSONValue, count: Int) throws -> Embeddings {
        var vectors = [[Float]?](repeating: nil, count: count)
        for item in json["data"]?.arrayValue ?? [] {
            guard let index = item["index"]?.intValue, vectors.indices.contains(index),
                  let numbers = item["embedding"]?.arrayValue else { continue }
            vectors[index] = Embeddings.normalised(numbers.map { Float($0.doubleValue ?? 0) })
        }
        let all = vectors.compactMap { $0 }
        guard all.count == count else {
            throw LooplError(.protocolViolation, "The server's embeddings answer does not hold one vector for each of the \(count) inputs. \(ServerEndpoint.advice)")
        }
        return Embeddings(vectors: all, tokens: json["usage"]?["prompt_tokens"]?.intValue ?? 0)
    }
}

private extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
