import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The config files found in a working folder (`./loopl.json`) that the user has trusted with
/// `loopl trust`: each one's real path and SHA-256, kept in `$XDG_CONFIG_HOME/loopl/trusted.json`
/// (else `~/.config/loopl/trusted.json`), written 0600 in a 0700 folder. A folder's own config can
/// name commands to run, so one that is not in the list, or has changed since, is refused.
package enum ConfigTrust {
    /// The largest config file read, in bytes.
    package static let maxFileBytes = 4 << 20

    /// The user's config folder: `$XDG_CONFIG_HOME/loopl`, else `$HOME/.config/loopl`.
    package static func folder(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/loopl" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/loopl"
    }

    /// Where the trusted files are listed.
    package static func storePath(environment: [String: String]) -> String {
        folder(environment: environment) + "/trusted.json"
    }

    /// Records `path`'s current content as trusted; returns its real path and digest.
    package static func trust(_ path: String, environment: [String: String]) throws -> (path: String, sha256: String) {
        let file = try ConfigFile.read(path)
        var entries = try trusted(environment: environment)
        entries[file.realPath] = .string(file.sha256)
        try save(entries, environment: environment)
        return (file.realPath, file.sha256)
    }

    /// True when `file` is listed with its current digest.
    package static func isTrusted(_ file: ConfigFile, environment: [String: String]) throws -> Bool {
        try trusted(environment: environment)[file.realPath]?.stringValue == file.sha256
    }

    /// The listed files: real path to digest.
    private static func trusted(environment: [String: String]) throws -> JSONObject {
        let path = storePath(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let file = try ConfigFile.read(path)
        guard let object = (try? JSONValue(parsing: file.data))?.objectValue, let files = object["files"]?.objectValue else {
            throw LooplError(.invalidConfiguration, "The trust list \(path) is not valid; delete it and run 'loopl trust' again.")
        }
        return files
    }

    private static func save(_ files: JSONObject, environment: [String: String]) throws {
        let folder = folder(environment: environment)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(folder, 0o700)
        let text = Array((JSONValue.object(["files": .object(files)]).jsonText(style: .python) + "\n").utf8)
        let temporary = folder + "/.trusted.json.\(UUID().uuidString)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw LooplError(.invalidConfiguration, "Cannot write \(temporary): \(String(cString: strerror(errno))).") }
        fchmod(fd, 0o600)
        let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        guard close(fd) == 0, synced, written == text.count, rename(temporary, storePath(environment: environment)) == 0 else {
            unlink(temporary)
            throw LooplError(.invalidConfiguration, "Cannot write the trust list \(storePath(environment: environment)).")
        }
    }
}

/// A config file read safely: owned by the user, writable by no one else, bounded in size.
package struct ConfigFile {
    /// The path with links and `..` resolved.
    package let realPath: String
    package let data: [UInt8]
    package var sha256: String { SHA256.hex(data) }

    /// Reads `path`, refusing a file that another user owns or that group or others may write.
    package static func read(_ path: String) throws -> ConfigFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LooplError(.invalidConfiguration, "Cannot read the configuration file \(path): \(String(cString: strerror(errno))).") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw LooplError(.invalidConfiguration, "The configuration file \(path) is not a regular file.")
        }
        guard info.st_uid == getuid() else {
            throw LooplError(.invalidConfiguration, "The configuration file \(path) is owned by another user (uid \(info.st_uid)); copy it to a file of your own.")
        }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw LooplError(.invalidConfiguration, "The configuration file \(path) may be written by other users; run 'chmod go-w \(path)' first.")
        }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw LooplError(.invalidConfiguration, "Cannot read the configuration file \(path).") }
            if n == 0 { break }
            data += buffer[0..<n]
            guard data.count <= ConfigTrust.maxFileBytes else {
                throw LooplError(.invalidConfiguration, "The configuration file \(path) is larger than \(ConfigTrust.maxFileBytes) bytes.")
            }
        }
        guard let resolved = realpath(path, nil) else { throw LooplError(.invalidConfiguration, "Cannot resolve the path \(path).") }
        defer { free(resolved) }
        return ConfigFile(realPath: String(cString: resolved), data: data)
    }
}
