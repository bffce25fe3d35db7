/// The markers of one ``ToolCallFormat`` compiled for matching at any byte, with its readers of
/// bare calls at the start of the visible text and where thinking ends when the prompt opened it.
struct MarkerTable: Sendable {
    let markers: [Marker]
    let startReaders: [BlockReader]
    /// Readers of bare calls at the start that count only when every call they read is declared.
    let declaredStartReaders: [BlockReader]
    /// Where thinking ends when the prompt opened it.
    let defaultReasoningClose: [UInt8]
    /// Whether a byte can begin a marker.
    let firstBytes: [Bool]
    /// Whether two bytes (`first << 8 | second`) can begin a marker.
    let firstPairs: [Bool]
    /// All markers' bytes end to end, with each marker's start, so that matching touches no
    /// reference-counted storage.
    private let flat: [UInt8]
    private let starts: [Int]
    /// Marker indices grouped by first byte: those for byte `b` are `order[groups[b]..<groups[b + 1]]`.
    private let order: [Int]
    private let groups: [Int]

    init(markers: [Marker], startReaders: [BlockReader], declaredStartReaders: [BlockReader] = [],
         reasoningClose: String = "</think>") {
        var seen = Set<[UInt8]>()
        let unique = markers.filter { !$0.literal.isEmpty && seen.insert($0.literal).inserted }
        self.markers = unique
        self.startReaders = startReaders
        self.declaredStartReaders = declaredStartReaders
        self.defaultReasoningClose = Array(reasoningClose.utf8)
        var flat: [UInt8] = []
        var starts: [Int] = []
        for marker in unique {
            starts.append(flat.count)
            flat += marker.literal
        }
        starts.append(flat.count)
        var order: [Int] = []
        var groups: [Int] = []
        for byte in 0..<256 {
            groups.append(order.count)
            order += unique.indices.filter { unique[$0].literal.first == UInt8(byte) }
        }
        groups.append(order.count)
        self.flat = flat
        self.starts = starts
        self.order = order
        self.groups = groups
        firstBytes = (0..<256).map { groups[$0] < groups[$0 + 1] }
        var pairs = [Bool](repeating: false, count: 65_536)
        for marker in unique {
            let bytes = marker.literal
            if bytes.count == 1 {
                for second in 0..<256 { pairs[Int(bytes[0]) << 8 | second] = true }
            } else {
                pairs[Int(bytes[0]) << 8 | Int(bytes[1])] = true
            }
        }
        firstPairs = pairs
    }

    enum MarkerMatch {
        case full(Marker)
        /// The text ends inside a marker.
        case partial
    }

    /// The longest marker at `index`, or `.partial` when a longer one may still come.
    func markerMatch(_ bytes: [UInt8], at index: Int, isFinal: Bool = false) -> MarkerMatch? {
        guard index < bytes.count else { return nil }
        let first = Int(bytes[index])
        var best = -1
        var bestLength = 0
        var partial = false
        flat.withUnsafeBufferPointer { flat in
            bytes.withUnsafeBufferPointer { text in
                for k in groups[first]..<groups[first + 1] {
                    let marker = order[k]
                    let start = starts[marker]
                    let length = starts[marker + 1] - start
                    var i = 1
                    while i < length, index + i < text.count, text[index + i] == flat[start + i] { i += 1 }
                    if i == length {
                        if length > bestLength { best = marker; bestLength = length }
                    } else if index + i >= text.count {
                        partial = true
                    }
                }
            }
        }
        if partial, !isFinal { return .partial }
        return best >= 0 ? .full(markers[best]) : nil
    }

    /// Thinking that every format reads.
    static let commonReasoning: [Marker] = [.reasoning("<think>", "</think>")]

    /// The table of a format; unknown names read like `.auto`.
    static func of(_ format: ToolCallFormat) -> MarkerTable {
        if format == .auto { return auto }
        return named[format] ?? auto
    }

    /// Every family that `.auto` reads, with bare JSON and pythonic calls at the start (and the
    /// families' plainest bare calls, for declared tools only).
    static let auto: MarkerTable = {
        let families = ToolCallFamily.all.filter(\.inAuto)
        return MarkerTable(markers: families.flatMap(\.markersWithReasoning) + commonReasoning,
                           startReaders: [BareCallReaders.json, PythonicCalls.bare],
                           declaredStartReaders: families.flatMap(\.autoStartReaders))
    }()

    static let named: [ToolCallFormat: MarkerTable] = {
        var table: [ToolCallFormat: MarkerTable] = [:]
        for family in ToolCallFamily.all {
            table[family.format] = MarkerTable(markers: family.markersWithReasoning + commonReasoning, startReaders: family.startReaders,
                                               reasoningClose: family.reasoningClose)
        }
        return table
    }()
}
