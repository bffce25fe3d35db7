import Foundation
import Loopl
import LooplTestKit

/// This process's open descriptors, child processes and resident memory at one moment.
struct ResourceSnapshot: Sendable {
    var descriptors: Int
    /// Children that run.
    var children: Int
    /// Children that ended but were not reaped: a leak of their own.
    var zombies: Int
    var residentKilobytes: Int
    /// The resident memory of the running children together.
    var childResidentKilobytes: Int

    static func now() -> ResourceSnapshot {
        let me = getpid()
        let all = ProcessWatch.children(of: me, includingZombies: true)
        let running = all.filter(ProcessWatch.isRunning)
        return ResourceSnapshot(descriptors: ProcessWatch.openDescriptors(of: me), children: running.count,
                                zombies: all.count - running.count, residentKilobytes: ProcessWatch.residentKilobytes(of: me),
                                childResidentKilobytes: running.map { ProcessWatch.residentKilobytes(of: $0) }.reduce(0, +))
    }

    var json: JSONValue {
        ["fds": .integer(descriptors), "children": .integer(children), "zombies": .integer(zombies), "rssKB": .integer(residentKilobytes),
         "childRssKB": .integer(childResidentKilobytes)]
    }
}
