import Foundation
import Loopl

/// One speed goal of docs/bench.md as `goals.json` declares it (built into this library, and read
/// by scripts/bench-goals): its name, its threshold, and whether a figure must reach or stay within it.
struct GoalSpec: Sendable, Equatable {
    var id: String
    /// The goal's name; `{local}` is the in-process backend, `{backend}` the row's, `{n}` a count.
    var name: String
    var threshold: Double
    var atLeast: Bool
    var unit: BenchGoal.Unit

    /// Every goal of `goals.json`, in its order.
    static let all: [GoalSpec] = {
        guard let json = try? JSONValue(parsing: String(decoding: PackageResources.goals_json, as: UTF8.self)) else { return [] }
        return (json["goals"]?.arrayValue ?? []).compactMap(GoalSpec.init(json:))
    }()

    /// The goal named `id` in `goals.json`; nil when there is none (a test checks every id is there).
    static func named(_ id: String) -> GoalSpec? { all.first { $0.id == id } }

    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let name = json["name"]?.stringValue,
              let unit = json["unit"]?.stringValue.flatMap(BenchGoal.Unit.init(rawValue:)) else { return nil }
        if let least = json["atLeast"]?.doubleValue {
            (threshold, atLeast) = (least, true)
        } else if let most = json["atMost"]?.doubleValue ?? json["below"]?.doubleValue {
            (threshold, atLeast) = (most, false)
        } else {
            return nil
        }
        (self.id, self.name, self.unit) = (id, name, unit)
    }

    /// The goal's name for `backend`, with `{n}` as `count`.
    func name(backend: String, count: Int? = nil) -> String {
        var text = name.replacingOccurrences(of: "{local}", with: BenchGoal.inProcess).replacingOccurrences(of: "{backend}", with: backend)
        if let count { text = text.replacingOccurrences(of: "{n}", with: String(count)) }
        return text
    }

    /// The goal for `backend` met or missed by `measured`.
    func goal(backend: String, count: Int? = nil, measured: Double, iqr: Double? = nil) -> BenchGoal {
        BenchGoal(name: name(backend: backend, count: count), measured: measured, goal: threshold, atLeast: atLeast, unit: unit, iqr: iqr)
    }
}
