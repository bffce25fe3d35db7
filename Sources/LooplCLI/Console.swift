#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: standard output for results, standard error for progress and errors.
package struct Console: Sendable {
    let writeOut: @Sendable (String) -> Void
    let writeErr: @Sendable (String) -> Void

    package init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        writeOut = out
        writeErr = err
    }

    /// The process's own standard output and error, unbuffered.
    package static let standard = Console(
        out: { text in write(fd: 1, text) },
        err: { text in write(fd: 2, text) })

    /// Writes exactly `text` to standard output.
    func out(_ text: String) { writeOut(text) }
    /// Writes `text` and (unless `newline` is false) a newline to standard error.
    func err(_ text: String, newline: Bool = true) { writeErr(newline ? text + "\n" : text) }

    private static func write(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
