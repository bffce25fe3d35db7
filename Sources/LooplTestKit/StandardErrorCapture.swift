import Foundation

/// Runs `body` with file descriptor 2 sent to a pipe and returns what was written there.
package func captureStandardError(_ body: () throws -> Void) throws -> String {
    let pipe = Pipe()
    let saved = dup(2)
    dup2(pipe.fileHandleForWriting.fileDescriptor, 2)
    defer {
        dup2(saved, 2)
        close(saved)
    }
    try body()
    dup2(saved, 2)
    try pipe.fileHandleForWriting.close()
    return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
}
