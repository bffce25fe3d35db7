import Loopl

extension APIError {
    /// `error` as the API answers it: a ``LooplError`` by its code, anything else as a 500.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError: error
        case let error as LooplError: APIError(error)
        case is CancellationError: .internalError("The request was cancelled.")
        default: .internalError("Loopl failed: \(error).")
        }
    }
}
