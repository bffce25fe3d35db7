/// An error while rendering, before the renderer adds the template line.
struct TemplateFailure: Error {
    let message: String
    /// True for `raise_exception`, whose message reaches the user unchanged.
    var raised = false
    /// The template line, once known.
    var line: Int?
    init(_ message: String, raised: Bool = false) {
        self.message = message
        self.raised = raised
    }
}
