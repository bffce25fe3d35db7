import Foundation

/// A look at processes through /proc (Linux): whether one runs, its children, descriptors and memory.
///
/// A zombie counts as gone: it is dead, only not yet reaped (this machine's PID 1 reaps no orphans).
package enum ProcessWatch {
    /// Whether process `pid` exists and is not a zombie.
    package static func isRunning(_ pid: Int32) -> Bool {
        guard let state = state(of: pid) else { return false }
        return state != "Z" && state != "X"
    }

    /// Waits up to `timeout` for `pid` to be gone; returns whether it is.
    package static func waitUntilGone(_ pid: Int32, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !isRunning(pid) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !isRunning(pid)
    }

    /// The name of the process between a host and each ``ChildProcess`` (the reaper of its tree).
    package static let reaperName = "loopl-reaper"

    /// The processes whose parent is `pid`, seeing through the reapers (a running reaper's
    /// children count as `pid`'s, as if it were not there); zombies too when `includingZombies`.
    package static func children(of pid: Int32, includingZombies: Bool = false) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).flatMap { child -> [Int32] in
            guard let fields = statFields(of: child), fields.count > 1, Int32(fields[1]) == pid else { return [] }
            let running = fields[0] != "Z" && fields[0] != "X"
            if running, command(of: child) == reaperName { return children(of: child, includingZombies: includingZombies) }
            return includingZombies || running ? [child] : []
        }.sorted()
    }

    /// The name of `pid`'s executable as the kernel keeps it (at most 15 characters).
    package static func command(of pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How many file descriptors `pid` has open.
    package static func openDescriptors(of pid: Int32 = getpid()) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    /// `pid`'s resident memory in kilobytes (VmRSS), 0 when unknown.
    package static func residentKilobytes(of pid: Int32 = getpid()) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// The processes below `pid`: its children, theirs, and so on (zombies left out).
    package static func descendants(of pid: Int32 = getpid()) -> [Int32] {
        let children = children(of: pid)
        return children + children.flatMap { descendants(of: $0) }
    }

    /// The one-letter state of `pid` (R, S, Z, ...), nil when there is no such process.
    static func state(of pid: Int32) -> Character? {
        statFields(of: pid)?.first?.first
    }

    /// The fields of /proc/PID/stat after the command name: state, parent, ...
    static func statFields(of pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
