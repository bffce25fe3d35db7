/// A command line that cannot be run: exits with status 2 and points at `--help`.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
