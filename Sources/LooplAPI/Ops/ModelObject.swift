import Loopl

/// One entry of `GET /v1/models`: `{id, object: "model", created, owned_by: "loopl"}`.
package struct ModelObject: Sendable, Hashable {
    /// The name clients send as `model`.
    package var id: String
    /// When the model was made available, in Unix seconds.
    package var created: Int
    /// Who owns the model, as OpenAI reports it; "loopl".
    package var ownedBy: String

    /// An entry for the model `id`.
    package init(id: String, created: Int = OpenAIFields.now(), ownedBy: String = "loopl") {
        self.id = id
        self.created = created
        self.ownedBy = ownedBy
    }

    /// The entry's JSON.
    package var json: JSONValue {
        ["id": .string(id), "object": "model", "created": .integer(created), "owned_by": .string(ownedBy)]
    }

    /// The `/v1/models` answer: `{object: "list", data: [...]}`.
    package static func list(_ models: [ModelObject]) -> JSONValue {
        ["object": "list", "data": .array(models.map(\.json))]
    }
}
