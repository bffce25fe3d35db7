import Foundation

/// The binary this process runs, for starting another copy of it (the `isolated` backend's worker).
///
/// It is what the kernel says (`/proc/self/exe`), never the name the process was started by:
/// started through PATH as `loopl`, that name would be looked up in the current folder.
package enum RunningExecutable {
    /// The absolute path of the running binary; throws `processFailed` when the kernel does not
    /// tell it (no /proc, or the binary was deleted since it started).
    package static func path() throws -> String {
        try path(link: "/proc/self/exe")
    }

    /// The absolute path that the kernel's link `link` (as /proc/self/exe) names.
    package static func path(link: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.baseAddress.map { readlink(link, $0, bytes.count) } ?? -1
        }
        guard count > 0 else {
            throw LooplError(.processFailed, "Cannot find the running loopl binary through \(link): \(String(cString: strerror(errno))). Mount /proc, or configure the stdio backend's command with the binary's full path.")
        }
        guard count <= Int(PATH_MAX) else {
            throw LooplError(.processFailed, "Cannot find the running loopl binary: \(link) names a path longer than \(PATH_MAX) bytes.")
        }
        let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard target.hasPrefix("/"), !target.hasSuffix(" (deleted)") || FileManager.default.fileExists(atPath: target) else {
            throw LooplError(.processFailed, "Cannot find the running loopl binary: \(link) names \(target), which is not a file that can be started again. Start loopl from its installed path, or configure the stdio backend's command with it.")
        }
        return target
    }
}
