import CLooplSpawn
import Foundation

/// A folder the file tools may read, and nothing outside it.
///
/// The root is opened once; every request is opened beneath that descriptor, so the check and
/// the open are one step and a link planted in between changes nothing. The kernel resolves the
/// path (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`); where it has no `openat2`,
/// or refuses a path only because a link in it is absolute, ``PathWalk`` resolves it one
/// component at a time. Either way `..` past the root, absolute paths, links that lead out of
/// it (absolute link targets must name a place beneath it), more than 40 links and magic links
/// all fail, and any other failure to resolve fails closed.
///
/// A hard link inside the root is a file inside the root, wherever else it is linked from: it is
/// read like any other (folders cannot be hard-linked, so no hard link opens a tree outside).
package struct FileRoot: Sendable, Hashable {
    /// Who resolves a path beneath the root.
    package enum Resolution: Sendable, Hashable, CustomStringConvertible {
        /// The kernel, with ``walk`` where it lacks `openat2`.
        case kernel
        /// ``PathWalk`` alone (what a kernel without `openat2` gets; for tests).
        case walk

        package var description: String { self == .kernel ? "kernel" : "walk" }
    }

    /// What a request must name.
    package enum Kind: Sendable {
        /// A regular file, to read.
        case file
        /// A folder, to list.
        case folder
    }

    /// The root's real path.
    package let path: String
    /// Who resolves paths beneath it.
    package let resolution: Resolution
    private let directory: Descriptor

    /// Opens the folder at `path` as the root; throws `invalidConfiguration` when it is not a
    /// folder that can be opened.
    package init(_ path: String, resolution: Resolution = .kernel) throws {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw LooplError(.invalidConfiguration, "The tools' root \(path) is not a folder that can be opened: \(String(cString: strerror(errno))).")
        }
        directory = Descriptor(fd)
        guard let real = realpath("/proc/self/fd/\(fd)", nil) ?? realpath(path, nil) else {
            throw LooplError(.invalidConfiguration, "Cannot find the real path of the tools' root \(path): \(String(cString: strerror(errno))).")
        }
        self.path = String(cString: real)
        free(real)
        self.resolution = resolution
    }

    package static func == (a: FileRoot, b: FileRoot) -> Bool { a.path == b.path && a.resolution == b.resolution }
    package func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(resolution)
    }

    /// Opens `relative` beneath the root as `kind` and returns its descriptor, which the caller
    /// closes. Throws `invalidRequest` for a way out, a missing name or the wrong kind of file.
    package func open(_ relative: String, as kind: Kind) throws -> Int32 {
        let trimmed = relative.trimmingCharacters(in: .whitespaces)
        guard !trimmed.hasPrefix("/"), !trimmed.hasPrefix("~") else { throw failure(relative, EXDEV, kind) }
        guard !trimmed.utf8.contains(0) else { throw failure(relative, EINVAL, kind) }
        let flags = (kind == .folder ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NOCTTY) | O_NONBLOCK | O_CLOEXEC
        let fd = resolve(trimmed.isEmpty ? "." : trimmed, flags: flags)
        guard fd >= 0 else { throw failure(relative, -fd, kind) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw failure(relative, code, kind)
        }
        let type = info.st_mode & S_IFMT
        guard type == (kind == .folder ? S_IFDIR : S_IFREG) else {
            close(fd)
            throw LooplError(.invalidRequest, kind == .folder ? "\(relative) is not a folder." : "\(relative) is not a regular file\(Self.name(of: type)).")
        }
        return fd
    }

    /// The descriptor of `path` opened with `flags`, or -errno.
    private func resolve(_ path: String, flags: Int32) -> Int32 {
        let walk = PathWalk(root: directory.fd, rootComponents: PathWalk.components(self.path))
        var absolute = false
        guard resolution == .kernel else { return walk.open(path, flags: flags, absolute: &absolute) }
        for _ in 0..<3 {
            let fd = loopl_open_beneath(directory.fd, path, flags)
            switch -fd {
            case EAGAIN: continue
            case ENOSYS, E2BIG: return walk.open(path, flags: flags, absolute: &absolute)
            case EXDEV:
                // The kernel refuses every absolute link, even one that leads back inside: the walk
                // judges those. Its word stands only when it did follow one; else the kernel's does.
                let walked = walk.open(path, flags: flags, absolute: &absolute)
                guard absolute else { return walked >= 0 ? Self.closing(walked, -EXDEV) : -EXDEV }
                return walked
            default: return fd
            }
        }
        return -EAGAIN
    }

    /// Whether this kernel resolves paths beneath a folder itself (it has `openat2`).
    package static var kernelResolves: Bool {
        let fd = loopl_open_beneath(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        return fd >= 0 ? closing(fd, true) : false
    }

    private static func closing<T>(_ fd: Int32, _ result: T) -> T {
        close(fd)
        return result
    }

    /// The error for `relative` failing with `code`.
    private func failure(_ relative: String, _ code: Int32, _ kind: Kind) -> LooplError {
        switch code {
        case EXDEV:
            return LooplError(.invalidRequest, "\(relative) is outside the tools' root \(path): give a path inside it, relative to it.")
        case ELOOP:
            return LooplError(.invalidRequest, "\(relative) goes through more than \(PathWalk.linkLimit) symbolic links, or ends on one that cannot be opened; the tools' root follows at most \(PathWalk.linkLimit).")
        case ENOENT:
            return LooplError(.invalidRequest, "\(relative) does not exist in the tools' root \(path).")
        case ENOTDIR:
            return LooplError(.invalidRequest, kind == .folder ? "\(relative) is not a folder." : "A part of \(relative) is not a folder.")
        case ENAMETOOLONG:
            return LooplError(.invalidRequest, "\(relative) is too long, or goes through a link too long to follow.")
        case EINVAL:
            return LooplError(.invalidRequest, "\(relative) is not a path the tools can open.")
        default:
            return LooplError(.io, "Cannot open \(relative) in the tools' root: \(String(cString: strerror(code))).")
        }
    }

    /// " (a FIFO)" and the like, for a file type that is not a regular file.
    private static func name(of type: mode_t) -> String {
        switch type {
        case S_IFDIR: " (a folder)"
        case S_IFIFO: " (a FIFO)"
        case S_IFSOCK: " (a socket)"
        case S_IFCHR, S_IFBLK: " (a device)"
        default: ""
        }
    }
}

/// A descriptor closed when the last copy of the value holding it goes.
private final class Descriptor: Sendable {
    let fd: Int32
    init(_ fd: Int32) { self.fd = fd }
    deinit { close(fd) }
}
