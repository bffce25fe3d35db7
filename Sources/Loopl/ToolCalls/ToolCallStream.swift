/// The incremental machinery behind ``ToolCallParser``: it holds back only text that could still
/// be markup, and decides each block once, the same way whatever the split of the input.
struct ToolCallStream: Sendable {
    private let markers: MarkerTable
    private let toolNames: Set<String>?
    /// The declared parameters' JSON Schemas, by tool and parameter.
    private let schemas: [String: JSONObject]
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` before this are done.
    private var position = 0
    private var state: State
    private var events: [ToolCallParser.Event] = []
    private var ids = CallIdGenerator()
    /// Whether a block of calls was read: then a marker cut at the end is markup, not text.
    private var readCalls = false
    /// The length of the undecided tail when a block last asked for more text; a long block is
    /// read again only after it grows by a sixteenth, so streaming stays linear.
    private var waitedAt: Int?
    /// Bytes examined over the turn: those the scans for markers stepped over, those each reader
    /// read through (again on each pass over a held block) and those its searches for closing
    /// tags looked at.
    private(set) var examinedBytes = 0

    init(markers: MarkerTable, toolNames: Set<String>?, schemas: [String: JSONObject], startsInReasoning: Bool?) {
        self.markers = markers
        self.toolNames = toolNames
        self.schemas = schemas
        state = startsInReasoning == nil ? .lead(atStart: true) : .text(atStart: true)
        if startsInReasoning == true { enterReasoning(markers.defaultReasoningClose) }
    }

    /// Where the stream is in the turn.
    private enum State {
        /// The start of a turn whose prompt may have opened thinking: its events are held until a
        /// bare closing marker turns it into thinking, or an opening marker or the end of the text
        /// leaves it as it reads. `atStart` as in ``text(atStart:)``.
        case lead(atStart: Bool)
        /// Visible text; `atStart` while it is still only spaces, where bare calls may start.
        case text(atStart: Bool)
        case reasoning(Reasoning)

        var atStart: Bool {
            switch self {
            case .lead(let atStart), .text(let atStart): atStart
            case .reasoning(let reasoning): reasoning.atStart
            }
        }
    }

    /// Inside reasoning: its closing marker and where the searches in it go on.
    private struct Reasoning {
        let close: [UInt8]
        /// Where the search for the closing marker, and for a call, goes on.
        var closeSearch: Int
        var callSearch: Int
        /// The first accepted call that no closing marker has ended yet; the text from there on is
        /// held, as it is thinking if the closing marker still comes and calls if not.
        var callInReasoning: Int?
        /// Whether the visible text after it is at the start still.
        var atStart: Bool

        /// Moves its positions back by `offset`, as the buffer dropped that many bytes.
        mutating func shift(by offset: Int) {
            closeSearch = max(0, closeSearch - offset)
            callSearch = max(0, callSearch - offset)
            callInReasoning = callInReasoning.map { $0 - offset }
        }
    }

    mutating func feed(_ delta: String) -> [ToolCallParser.Event] {
        buffer.append(contentsOf: delta.utf8)
        run(isFinal: false)
        return takeEvents()
    }

    mutating func finish() -> [ToolCallParser.Event] {
        run(isFinal: true)
        endLead()
        buffer = []
        position = 0
        return takeEvents()
    }

    private mutating func takeEvents() -> [ToolCallParser.Event] {
        if case .lead = state { return [] }
        if position > 65_536, position * 2 > buffer.count {
            buffer.removeFirst(position)
            if case .reasoning(var reasoning) = state {
                reasoning.shift(by: position)
                state = .reasoning(reasoning)
            }
            position = 0
        }
        defer { events = [] }
        return events
    }

    private mutating func emitText(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        emitText(String(decoding: buffer[range], as: UTF8.self))
    }

    /// Adds visible text, merged with visible text just before it.
    private mutating func emitText(_ text: String) {
        guard !text.isEmpty else { return }
        if state.atStart, text.utf8.contains(where: { !ByteCursor.isSpace($0) }) { leaveStart() }
        if case .text? = events.last, case .text(var merged) = events.removeLast() {
            merged += text
            events.append(.text(merged))
        } else {
            events.append(.text(text))
        }
    }

    /// Adds thinking, merged with thinking just before it (appended in place, as a held turn
    /// start keeps growing one event).
    private mutating func emitReasoning(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let text = String(decoding: buffer[range], as: UTF8.self)
        if case .reasoning? = events.last, case .reasoning(var merged) = events.removeLast() {
            merged += text
            events.append(.reasoning(merged))
        } else {
            events.append(.reasoning(text))
        }
    }

    /// Thinking begins at `position`; it ends the turn's lead.
    private mutating func enterReasoning(_ close: [UInt8]) {
        state = .reasoning(Reasoning(close: close, closeSearch: position, callSearch: position, atStart: state.atStart))
    }

    /// The start of the turn is no longer held.
    private mutating func endLead() {
        if case .lead(let atStart) = state { state = .text(atStart: atStart) }
    }

    /// A bare closing marker at `end` ends the lead: the turn began inside thinking that the prompt
    /// opened, and the visible text starts after the marker.
    private mutating func leadWasReasoning(upTo end: Int) {
        events = []
        emitReasoning(0..<end)
        state = .text(atStart: true)
    }

    /// Something visible came: bare calls can no longer start.
    private mutating func leaveStart() {
        switch state {
        case .lead: state = .lead(atStart: false)
        case .text: state = .text(atStart: false)
        case .reasoning(var reasoning):
            reasoning.atStart = false
            state = .reasoning(reasoning)
        }
    }

    private func isAccepted(_ piece: Piece) -> Bool {
        switch piece {
        case .call(let name, _, _), .looseCall(let name, _, _): toolNames.map { $0.contains(name) } ?? true
        case .builtinCall(let name, _): toolNames?.contains(name) == true
        case .text, .openReasoning, .malformedCall: false
        }
    }

    /// Turns a block's pieces into events; a call to an undeclared tool is rejected and the block's
    /// text stays visible (a built-in tool's markup is dropped).
    private mutating func deliver(_ loosePieces: [Piece], raw: Range<Int>) {
        let pieces = loosePieces.map { $0.typed(by: schemas) }
        readCalls = true
        var rejected: [ToolCallParser.RejectedCall] = []
        if let toolNames {
            for piece in pieces {
                if case .call(let name, let arguments, _) = piece, !toolNames.contains(name) {
                    rejected.append(.init(name: name, arguments: arguments, reason: "'\(name)' is not a declared tool",
                                          text: String(decoding: buffer[raw], as: UTF8.self)))
                }
            }
        }
        for piece in pieces {
            switch piece {
            case .text(let text):
                emitText(text)
            case .openReasoning(let close):
                enterReasoning(close)
            case .looseCall:
                break
            case .malformedCall(let name, let why):
                events.append(.rejected(.init(name: name, arguments: [:], reason: "the call to '\(name)' is malformed (\(why)); the block's other calls were read",
                                              text: String(decoding: buffer[raw], as: UTF8.self))))
            case .call(let name, let arguments, let id):
                if isAccepted(piece) { events.append(.toolCall(ToolCall(id: id ?? ids.next(), name: name, arguments: arguments))) }
            case .builtinCall(let name, let arguments):
                if isAccepted(piece) {
                    events.append(.toolCall(ToolCall(id: ids.next(), name: name, arguments: arguments)))
                } else {
                    events.append(.rejected(.init(name: name, arguments: arguments,
                                                  reason: "'\(name)' is a built-in tool of the model, not a declared tool",
                                                  text: String(decoding: buffer[raw], as: UTF8.self))))
                }
            }
        }
        if !rejected.isEmpty {
            emitText(raw)
            events += rejected.map { .rejected($0) }
        }
    }

    private mutating func run(isFinal: Bool) {
        if !isFinal, let waitedAt {
            let pending = buffer.count - position
            if pending >= 1024, pending - waitedAt < pending / 16 { return }
        }
        waitedAt = nil
        while position < buffer.count {
            if case .reasoning(var reasoning) = state {
                let ended = readReasoning(&reasoning, isFinal: isFinal)
                state = ended ? .text(atStart: reasoning.atStart) : .reasoning(reasoning)
                if ended { continue }
                return
            }
            if state.atStart {
                switch tryStartReaders(isFinal: isFinal) {
                case .matched: continue
                case .waiting: return
                case .none: break
                }
            }
            if !scanContent(isFinal: isFinal) { return }
        }
    }

    /// Inside thinking: emits it up to its closing marker. While no closing marker has come, the first
    /// accepted call in it would end it (the calls of unclosed thinking are calls, as llama.cpp reads
    /// them), so the text from that call on is held. Returns true when the thinking has ended.
    private mutating func readReasoning(_ reasoning: inout Reasoning, isFinal: Bool) -> Bool {
        let close = reasoning.close
        if let end = ByteCursor.find(close, in: buffer, from: max(position, reasoning.closeSearch)) {
            emitReasoning(position..<end)
            position = end + close.count
            return true
        }
        reasoning.closeSearch = max(position, buffer.count - close.count + 1)
        if reasoning.callInReasoning == nil { reasoning.callInReasoning = firstCallInReasoning(&reasoning.callSearch, isFinal: isFinal) }
        let end = min(reasoning.callInReasoning ?? reasoning.callSearch, isFinal ? buffer.count : buffer.count - heldBack(close))
        if end > position {
            emitReasoning(position..<end)
            position = end
        }
        if reasoning.callInReasoning == nil, reasoning.callSearch < buffer.count { waitedAt = buffer.count - position }
        return isFinal && reasoning.callInReasoning != nil
    }

    /// The first block after `callSearch` that reads as an accepted call; `callSearch` moves past
    /// the text that holds none, up to a block or marker still undecided.
    private func firstCallInReasoning(_ callSearch: inout Int, isFinal: Bool) -> Int? {
        var i = max(position, callSearch)
        while true {
            i = nextCandidate(from: i)
            guard i < buffer.count else {
                callSearch = buffer.count
                return nil
            }
            switch markers.markerMatch(buffer, at: i, isFinal: isFinal) {
            case .partial?:
                callSearch = i
                return nil
            case .full(let marker)?:
                guard case .block(let reader) = marker.kind else { break }
                var cursor = ByteCursor(buffer, at: i, isFinal: isFinal)
                do {
                    if try reader(&cursor).contains(where: isAccepted), cursor.index > i { return i }
                } catch ScanStop.needMore {
                    callSearch = i
                    return nil
                } catch {}
            case nil:
                break
            }
            i += 1
        }
    }

    private enum StartOutcome { case matched, waiting, none }

    /// At the first visible byte, tries the readers of bare calls (JSON, pythonic) that are only
    /// calls when nothing visible comes before them.
    private mutating func tryStartReaders(isFinal: Bool) -> StartOutcome {
        var first = position
        while first < buffer.count, ByteCursor.isSpace(buffer[first]) { first += 1 }
        if first == buffer.count {
            if isFinal { emitText(position..<first); position = first }
            return .waiting
        }
        let readers = markers.startReaders.map { ($0, false) } + markers.declaredStartReaders.map { ($0, true) }
        for (reader, needsDeclared) in readers {
            var cursor = ByteCursor(buffer, at: first, isFinal: isFinal)
            defer { examinedBytes += cursor.scanned + max(0, cursor.index - first) }
            do {
                let pieces = try reader(&cursor)
                guard cursor.index > first else { continue }
                if needsDeclared, !pieces.allSatisfy({ !$0.isCall || isAccepted($0) }) { continue }
                emitText(position..<first)
                deliver(pieces, raw: first..<cursor.index)
                position = cursor.index
                return .matched
            } catch ScanStop.needMore {
                waitedAt = buffer.count - position
                return .waiting
            } catch {
                continue
            }
        }
        // A marker here (thinking, a tagged call) keeps the start open for what follows it.
        if markers.markerMatch(buffer, at: first) == nil { leaveStart() }
        return .none
    }

    /// Emits text up to the next marker and reads the marker's block. Returns false when it must
    /// wait for more text (or has consumed everything).
    private mutating func scanContent(isFinal: Bool) -> Bool {
        var i = position
        let count = buffer.count
        while true {
            let from = i
            i = nextCandidate(from: i)
            examinedBytes += min(i, count) - from
            guard i < count else { break }
            // At the end, a marker cut after calls or two bytes in is markup: dropped.
            switch markers.markerMatch(buffer, at: i, isFinal: isFinal && !readCalls && count - i < 2) {
            case nil:
                break
            case .partial?:
                emitText(position..<i)
                position = isFinal ? count : i
                return false
            case .full(let marker)?:
                if let goesOn = read(marker, at: i, isFinal: isFinal) { return goesOn }
            }
            i += 1
        }
        emitText(position..<count)
        position = count
        return false
    }

    /// Reads the marker found at `i`: whether the scan goes on (false to wait for more text), or nil
    /// when it is not markup here.
    private mutating func read(_ marker: Marker, at i: Int, isFinal: Bool) -> Bool? {
        switch marker.kind {
        case .drop:
            emitText(position..<i)
        case .reasoningEnd:
            if case .lead = state {
                leadWasReasoning(upTo: i)
            } else {
                emitText(position..<i)
            }
        case .reasoning(let close, let anywhere):
            // Thinking opens only before any visible text, as llama.cpp reads it (unless its marker
            // opens it anywhere); a closing marker after an opening one in the text closes that,
            // not thinking the prompt opened.
            guard anywhere || state.atStart, anywhere || !buffer[position..<i].contains(where: { !ByteCursor.isSpace($0) }) else {
                endLead()
                return nil
            }
            emitText(position..<i)
            position = i + marker.literal.count
            enterReasoning(close)
            return true
        case .block(let reader):
            return readBlock(reader, at: i, isFinal: isFinal)
        }
        position = i + marker.literal.count
        return true
    }

    /// Reads the block at `i`, as ``read(_:at:isFinal:)`` does.
    private mutating func readBlock(_ reader: BlockReader, at i: Int, isFinal: Bool) -> Bool? {
        var cursor = ByteCursor(buffer, at: i, isFinal: isFinal)
        defer { examinedBytes += cursor.scanned + max(0, cursor.index - i) }
        do {
            let pieces = try reader(&cursor)
            if cursor.index <= i { return nil }
            emitText(position..<i)
            deliver(pieces, raw: i..<cursor.index)
            position = cursor.index
            return true
        } catch ScanStop.needMore {
            emitText(position..<i)
            position = i
            waitedAt = buffer.count - position
            return false
        } catch {
            guard isFinal, isCut(reader, at: i) else { return nil }
            // The turn ended inside a call (length, a stop string, a cancel): the partial call is
            // neither a call nor text, so no markup reaches the content.
            emitText(position..<i)
            position = buffer.count
            return false
        }
    }

    /// Whether the block at `i` is a call that more text could still complete: one the turn cut.
    private func isCut(_ reader: BlockReader, at i: Int) -> Bool {
        var cursor = ByteCursor(buffer, at: i, isFinal: false)
        do {
            _ = try reader(&cursor)
            return false
        } catch ScanStop.needMore {
            return true
        } catch {
            return false
        }
    }

    /// The first position at or after `start` whose byte may begin a marker.
    private func nextCandidate(from start: Int) -> Int {
        markers.firstBytes.withUnsafeBufferPointer { table in
            markers.firstPairs.withUnsafeBufferPointer { pairs in
                buffer.withUnsafeBufferPointer { bytes in
                    var i = start
                    let last = bytes.count - 1
                    while i < last {
                        let first = Int(bytes[i])
                        if table[first], pairs[first << 8 | Int(bytes[i + 1])] { return i }
                        i += 1
                    }
                    // The last byte may begin a marker whose rest has not come yet.
                    if i == last, table[Int(bytes[i])] { return i }
                    return bytes.count
                }
            }
        }
    }

    /// The length of the longest tail of the buffer that begins `literal`.
    private func heldBack(_ literal: [UInt8]) -> Int {
        var length = min(literal.count - 1, buffer.count - position)
        while length > 0 {
            if ByteCursor.match(buffer, at: buffer.count - length, literal) == .partial { return length }
            length -= 1
        }
        return 0
    }
}
