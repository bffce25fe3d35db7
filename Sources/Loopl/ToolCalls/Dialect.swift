/// The markup one ``ToolCallFormat`` understands: markers that open blocks in running text, readers
/// of bare calls that only count at the start of the visible text, and thinking markers.
struct Dialect: Sendable {
    let markers: [Marker]
    let startReaders: [BlockReader]
    /// Where thinking ends when the prompt opened it.
    let defaultReasoningClose: [UInt8]
    /// Whether a byte can begin a marker.
    let firstBytes: [Bool]
    private let byFirstByte: [[Marker]]

    init(markers: [Marker], startReaders: [BlockReader], reasoningClose: String = "</think>") {
        var seen = Set<[UInt8]>()
        let unique = markers.filter { seen.insert($0.literal).inserted }
        self.markers = unique
        self.startReaders = startReaders
        self.defaultReasoningClose = Array(reasoningClose.utf8)
        var table = [[Marker]](repeating: [], count: 256)
        for marker in unique { if let first = marker.literal.first { table[Int(first)].append(marker) } }
        byFirstByte = table
        firstBytes = table.map { !$0.isEmpty }
    }

    enum MarkerMatch {
        case full(Marker)
        /// The text ends inside a marker.
        case partial
    }

    /// The longest marker at `index`, or `.partial` when a longer one may still come.
    func markerMatch(_ bytes: [UInt8], at index: Int, isFinal: Bool = false) -> MarkerMatch? {
        guard index < bytes.count else { return nil }
        var best: Marker?
        var partial = false
        for marker in byFirstByte[Int(bytes[index])] {
            switch ByteCursor.match(bytes, at: index, marker.literal) {
            case .yes: if best.map({ marker.literal.count > $0.literal.count }) ?? true { best = marker }
            case .partial: partial = true
            case .no: break
            }
        }
        if partial, !isFinal { return .partial }
        return best.map { .full($0) }
    }

    /// The dialect of a format; unknown names read like `.auto`.
    static func of(_ format: ToolCallFormat) -> Dialect {
        if format == .auto { return auto }
        return named[format] ?? auto
    }

    static let auto: Dialect = {
        var markers: [Marker] = []
        for family in Families.all { markers += family.markers + family.reasoning }
        return Dialect(markers: markers + Families.commonReasoning,
                       startReaders: [BareCallReaders.json, PythonicCalls.bare])
    }()

    static let named: [ToolCallFormat: Dialect] = {
        var table: [ToolCallFormat: Dialect] = [:]
        for family in Families.all {
            table[family.format] = Dialect(markers: family.markers + family.reasoning + Families.commonReasoning,
                                           startReaders: family.startReaders,
                                           reasoningClose: family.reasoningClose)
        }
        return table
    }()
}

/// One family's markup.
struct Family: Sendable {
    let format: ToolCallFormat
    var markers: [Marker] = []
    var startReaders: [BlockReader] = []
    var reasoning: [Marker] = []
    var reasoningClose = "</think>"
}
