extension RequestField {
    /// What a content part of a type that Loopl does not read holds, for the 400 that refuses it.
    enum Refused {
        static let images = "images are"
        static let audio = "audio is"
        static let files = "files are"
    }

    /// A message's text: a string, or a list of parts whose `type` is one of `textTypes` (their
    /// `text`) or `refusal` (its `refusal`), joined. A part in `refused` gets a 400 saying what
    /// it holds is not supported; any other a 400 naming its type. `send` names the parts to send.
    func contentText(textTypes: Set<String>, refused: [String: String], send: String) throws(APIError) -> String {
        if let text = value.stringValue { return text }
        guard value.arrayValue != nil else { throw error("must be a string or an array of \(send), not \(kind).") }
        var text = ""
        for part in try array() {
            let typeField = try part.object().required("type")
            let type = try typeField.string()
            if textTypes.contains(type) || type == "refusal" {
                text += try part.required(type == "refusal" ? "refusal" : "text").string()
                continue
            }
            guard let what = refused[type] else {
                throw typeField.error("is \"\(type)\", which is not a text part type; send \(send).")
            }
            throw typeField.error("is \"\(type)\": \(what) not supported; send \(what == Refused.files ? "their text as " : "")\(send).")
        }
        return text
    }
}
