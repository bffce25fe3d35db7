import Loopl

/// One entry of `GET /v1/models`: `{id, object: "model", created, owned_by: "loopl"}`, and what
/// the server knows of its backend: `kind`, `state` (with `error` when failed) and `size` (the
/// model file's bytes, when it has one), and for a backend loaded or loading its ``ModelUsage``.
package struct ModelObject: Sendable, Hashable {
    /// The name clients send as `model`.
    package var id: String
    /// When the model was made available, in Unix seconds.
    package var created: Int
    /// Who owns the model, as OpenAI reports it; "loopl".
    package var ownedBy: String
    /// The backend's kind (`llama`, `server`, `stdio`…).
    package var kind: String?
    /// Where the backend's model is in its life.
    package var state: ModelState?
    /// The model file's bytes; nil without a file.
    package var size: Int?
    /// What it takes and how it is used, while loaded or loading; nil otherwise and for an alias.
    package var usage: ModelUsage?

    /// An entry for the model `id`.
    package init(id: String, created: Int = OpenAIFields.now(), ownedBy: String = "loopl",
                 kind: String? = nil, state: ModelState? = nil, size: Int? = nil, usage: ModelUsage? = nil) {
        self.id = id
        self.created = created
        self.ownedBy = ownedBy
        self.kind = kind
        self.state = state
        self.size = size
        self.usage = usage
    }

    /// The entry's JSON.
    package var json: JSONValue {
        var object: JSONObject = ["id": .string(id), "object": "model", "created": .integer(created), "owned_by": .string(ownedBy)]
        if let kind { object["kind"] = .string(kind) }
        if let state { object["state"] = .string(state.name) }
        if let error = state?.error { object["error"] = .string(error) }
        if let size { object["size"] = .integer(size) }
        usage?.add(to: &object)
        return .object(object)
    }

    /// The `/v1/models` answer: `{object: "list", data: [...]}`.
    package static func list(_ models: [ModelObject]) -> JSONValue {
        ["object": "list", "data": .array(models.map(\.json))]
    }
}
