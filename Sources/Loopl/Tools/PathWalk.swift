import CLooplSpawn
import Foundation

/// Resolves a path beneath a folder one component at a time, for kernels without `openat2`:
/// each name is opened with `O_NOFOLLOW`, symbolic links are read and followed here (at most
/// ``linkLimit``), `..` steps back only to a folder this walk came down through, and an absolute
/// link target is followed only when it names a place beneath the root. Magic links (as in
/// /proc) are read as plain text, never followed.
struct PathWalk {
    /// The most symbolic links one path may go through, as for the kernel.
    static let linkLimit = 40
    /// The longest link target read; the kernel stores none longer.
    static let targetLimit = Int(PATH_MAX)

    /// The root's descriptor, which the walk never closes.
    let root: Int32
    /// The root's real path, by components, for absolute link targets.
    let rootComponents: [String]

    /// Opens `path` beneath the root with `flags`: the descriptor, or -errno (-EXDEV for a way
    /// out of the root, -ELOOP for more than ``linkLimit`` links). `absolute` is set when the walk
    /// followed an absolute link target (one beneath the root).
    func open(_ path: String, flags: Int32, absolute: inout Bool) -> Int32 {
        var folders: [Int32] = []
        defer { folders.forEach { close($0) } }
        var pending = Array(Self.components(path).reversed())
        var links = 0
        while let name = pending.popLast() {
            let current = folders.last ?? root
            if name == ".." {
                guard let top = folders.popLast() else { return -EXDEV }
                close(top)
                continue
            }
            let fd = openat(current, name, loopl_o_path() | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { return -errno }
            var info = stat()
            guard fstat(fd, &info) == 0 else { return Self.closing(fd, -errno) }
            if info.st_mode & S_IFMT == S_IFLNK {
                links += 1
                let target = Self.readLink(fd)
                close(fd)
                guard links <= Self.linkLimit else { return -ELOOP }
                guard let target else { return -ENAMETOOLONG }
                guard let steps = steps(of: target, from: &folders) else { return -EXDEV }
                absolute = absolute || target.hasPrefix("/")
                pending += steps.reversed()
            } else if info.st_mode & S_IFMT == S_IFDIR, !pending.isEmpty {
                folders.append(fd)
            } else {
                close(fd)
                guard pending.isEmpty else { return -ENOTDIR }
                let opened = openat(current, name, flags | O_NOFOLLOW)
                // The name became a link since it was looked at: judge it again, as a link.
                if opened < 0, errno == ELOOP, links < Self.linkLimit {
                    links += 1
                    pending.append(name)
                    continue
                }
                return opened < 0 ? -errno : opened
            }
        }
        let opened = openat(folders.last ?? root, ".", flags)
        return opened < 0 ? -errno : opened
    }

    /// The components to walk for a link's `target`; for an absolute one the walk restarts at the
    /// root (`folders` emptied). Nil when an absolute target is not beneath the root.
    private func steps(of target: String, from folders: inout [Int32]) -> [String]? {
        let parts = Self.components(target)
        guard target.hasPrefix("/") else { return parts }
        guard parts.starts(with: rootComponents) else { return nil }
        folders.forEach { close($0) }
        folders.removeAll()
        return Array(parts.dropFirst(rootComponents.count))
    }

    /// The names in `path`, without empty ones and `.`.
    static func components(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
    }

    /// The target of the link opened (`O_PATH | O_NOFOLLOW`) as `fd`; nil when it cannot be read
    /// or is longer than ``targetLimit``.
    static func readLink(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: targetLimit + 1)
        let count = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.baseAddress.map { readlinkat(fd, "", $0, bytes.count) } ?? -1
        }
        guard count > 0, count <= targetLimit else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func closing(_ fd: Int32, _ result: Int32) -> Int32 {
        close(fd)
        return result
    }
}
