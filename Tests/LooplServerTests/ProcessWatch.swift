import Foundation

/// Whether process `pid` still runs (a zombie counts as gone).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
    return state != "Z" && state != "X"
}

/// Waits up to `timeout` for `pid` to be gone; returns whether it is.
func waitUntilGone(_ pid: Int32, timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if !isRunning(pid) { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return !isRunning(pid)
}

/// The llama-server processes this test process started that still run.
func ownLlamaServers() -> Set<Int32> {
    let me = getpid()
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return Set(entries.compactMap(Int32.init).filter { pid in
        guard isRunning(pid), ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").hasPrefix("llama-server"),
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && Int32(fields[1]) == me
    })
}
