import Foundation

/// Resident memory of this process and of its descendants, read from /proc.
enum ProcessMemory {
    /// This process's resident set, in MiB.
    static var hostMiB: Double { residentMiB(of: getpid()) ?? 0 }

    /// The resident sets of every process descended from this one, summed, in MiB.
    static var childrenMiB: Double {
        descendants(of: getpid()).compactMap(residentMiB).reduce(0, +)
    }

    /// The ids of the processes below `root`.
    static func descendants(of root: Int32) -> [Int32] {
        var parents: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After "pid (name) ": state, then the parent's id.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
        }
        var found: [Int32] = []
        var frontier: Set<Int32> = [root]
        while !frontier.isEmpty {
            let next = parents.filter { frontier.contains($0.value) }.map(\.key)
            found += next
            frontier = Set(next)
        }
        return found
    }

    /// VmRSS of a process, in MiB; nil when it has gone or is a zombie.
    static func residentMiB(of pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kib / 1024
    }
}
