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
    /// The closing marker while inside thinking.
    private var reasoningClose: [UInt8]?
    /// True while the visible text is still only spaces, where bare calls may start.
    private var atStart = true
    /// True while the start of the turn may be thinking that the prompt opened: its events are held
    /// until a bare closing marker turns it into thinking, or an opening marker or the end of the
    /// text leaves it as it reads.
    private var inLead: Bool
    /// Inside thinking: where the search for its closing marker, and for a call, goes on.
    private var closeSearch = 0
    private var callSearch = 0
    /// The first accepted call in thinking that no closing marker has ended yet; the text from
    /// there on is held, as it is thinking if the closing marker still comes and calls if not.
    private var callInThinking: Int?
    private var events: [ToolCallParser.Event] = []
    private var ids = CallIdGenerator()
    /// The length of the undecided tail when a block last asked for more text; a long block is
    /// read again only after it grows by a sixteenth, so streaming stays linear.
    private var waitedAt: Int?

    init(markers: MarkerTable, toolNames: Set<String>?, schemas: [String: JSONObject], startsInReasoning: Bool?) {
        self.markers = markers
        self.toolNames = toolNames
        self.schemas = schemas
        inLead = startsInReasoning == nil
        if startsInReasoning == true { enterThinking(markers.defaultReasoningClose) }
    }

    mutating func feed(_ delta: String) -> [ToolCallParser.Event] {
        buffer.append(contentsOf: delta.utf8)
        run(isFinal: false)
        return takeEvents()
    }

    mutating func finish() -> [ToolCallParser.Event] {
        run(isFinal: true)
        inLead = false
        buffer = []
        position = 0
        return takeEvents()
    }

    private mutating func takeEvents() -> [ToolCallParser.Event] {
        if inLead { return [] }
        if position > 65_536, position * 2 > buffer.count {
            buffer.removeFirst(position)
            closeSearch = max(0, closeSearch - position)
            callSearch = max(0, callSearch - position)
            callInThinking = callInThinking.map { $0 - position }
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
        if atStart, text.utf8.contains(where: { !ByteCursor.isSpace($0) }) { atStart = false }
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

    private mutating func enterThinking(_ close: [UInt8]) {
        reasoningClose = close
        closeSearch = position
        callSearch = position
        callInThinking = nil
    }

    private func isAccepted(_ piece: Piece) -> Bool {
        switch piece {
        case .call(let name, _, _), .looseCall(let name, _, _): toolNames.map { $0.contains(name) } ?? true
        case .builtinCall(let name, _): toolNames?.contains(name) == true
        case .text, .openReasoning: false
        }
    }

    /// Turns a block's pieces into events; a call to an undeclared tool is rejected and the block's
    /// text stays visible (a built-in tool's markup is dropped).
    private mutating func deliver(_ loosePieces: [Piece], raw: Range<Int>) {
        let pieces = loosePieces.map(typed)
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
                if atStart { inLead = false }
                enterThinking(close)
            case .looseCall:
                break
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

    /// A loose call with its declared string parameters given back their text.
    private func typed(_ piece: Piece) -> Piece {
        guard case .looseCall(let name, var arguments, let raw) = piece else { return piece }
        if let properties = schemas[name] {
            for (key, text) in raw where ToolCallStream.isStringOnly(properties[key]?["type"]) {
                arguments[key] = .string(text)
            }
        }
        return .call(name: name, arguments: arguments, id: nil)
    }

    static func isStringOnly(_ type: JSONValue?) -> Bool {
        switch type {
        case .string("string")?: true
        case .array(let types)?: types.contains(.string("string")) && types.allSatisfy { $0 == .string("string") || $0 == .string("null") }
        default: false
        }
    }

    private mutating func run(isFinal: Bool) {
        if !isFinal, let waitedAt {
            let pending = buffer.count - position
            if pending >= 1024, pending - waitedAt < pending / 16 { return }
        }
        waitedAt = nil
        while position < buffer.count {
            if let close = reasoningClose {
                if readThinking(close, isFinal: isFinal) { continue }
                return
            }
            if atStart {
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
    private mutating func readThinking(_ close: [UInt8], isFinal: Bool) -> Bool {
        if let end = ByteCursor.find(close, in: buffer, from: max(position, closeSearch)) {
            emitReasoning(position..<end)
            position = end + close.count
            reasoningClose = nil
            callInThinking = nil
            return true
        }
        closeSearch = max(position, buffer.count - close.count + 1)
        if callInThinking == nil { callInThinking = firstCallInThinking(isFinal: isFinal) }
        let end = min(callInThinking ?? callSearch, isFinal ? buffer.count : buffer.count - heldBack(close))
        if end > position {
            emitReasoning(position..<end)
            position = end
        }
        if callInThinking == nil, callSearch < buffer.count { waitedAt = buffer.count - position }
        guard isFinal, callInThinking != nil else { return false }
        reasoningClose = nil
        callInThinking = nil
        return true
    }

    /// The first block after `callSearch` that reads as an accepted call; `callSearch` moves past
    /// the text that holds none, up to a block or marker still undecided.
    private mutating func firstCallInThinking(isFinal: Bool) -> Int? {
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
        if markers.markerMatch(buffer, at: first) == nil { atStart = false }
        return .none
    }

    /// Emits text up to the next marker and reads the marker's block. Returns false when it must
    /// wait for more text (or has consumed everything).
    private mutating func scanContent(isFinal: Bool) -> Bool {
        var i = position
        let count = buffer.count
        while true {
            i = nextCandidate(from: i)
            guard i < count else { break }
            switch markers.markerMatch(buffer, at: i, isFinal: isFinal) {
            case nil:
                i += 1
                continue
            case .partial?:
                if isFinal { i += 1; continue }
                emitText(position..<i)
                position = i
                return false
            case .full(let marker)?:
                switch marker.kind {
                case .drop:
                    emitText(position..<i)
                    position = i + marker.literal.count
                    return true
                case .thinkingEnd:
                    if inLead {
                        // The turn began inside thinking that the prompt opened.
                        events = []
                        emitReasoning(0..<i)
                        inLead = false
                        atStart = true
                    } else {
                        emitText(position..<i)
                    }
                    position = i + marker.literal.count
                    return true
                case .reasoning(let close):
                    // Thinking opens only before any visible text, as llama.cpp reads it; a closing
                    // marker after an opening one in the text closes that, not thinking the prompt opened.
                    guard atStart, !buffer[position..<i].contains(where: { !ByteCursor.isSpace($0) }) else {
                        inLead = false
                        i += 1
                        continue
                    }
                    emitText(position..<i)
                    position = i + marker.literal.count
                    inLead = false
                    enterThinking(close)
                    return true
                case .block(let reader):
                    var cursor = ByteCursor(buffer, at: i, isFinal: isFinal)
                    do {
                        let pieces = try reader(&cursor)
                        if cursor.index <= i { i += 1; continue }
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
                        i += 1
                        continue
                    }
                }
            }
        }
        emitText(position..<count)
        position = count
        return false
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
