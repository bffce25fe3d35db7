import Loopl
import Testing

@Suite struct LooplErrorTests {
    @Test func theCodesAreAClosedSetWithStableNames() {
        let names = LooplError.Code.all.map(\.rawValue)
        #expect(Set(names).count == names.count, "two codes share a name")
        for code in LooplError.Code.all {
            #expect(LooplError.Code(rawValue: code.rawValue) == code)
            #expect(!code.summary.isEmpty)
        }
        #expect(LooplError.Code(rawValue: "no_such_code") == nil)
        #expect(LooplError.Code.timedOut.rawValue == "timed_out" && LooplError.Code.sessionFile.rawValue == "session_file")
    }

    @Test func wrappingKeepsLooplErrorsAndNamesTheRest() {
        struct Disk: Error {}
        let kept = LooplError(.contextOverflow, "too long")
        #expect(LooplError.wrapping(kept, as: .io, "unused") == kept)
        #expect(LooplError.wrapping(CancellationError(), as: .io, "unused").code == .cancelled)
        let wrapped = LooplError.wrapping(Disk(), as: .io, "Cannot write x.")
        #expect(wrapped.code == .io && wrapped.message == "Cannot write x." && wrapped.underlying is Disk)
    }

    /// A backend's stream never throws anything but a LooplError, whatever its body throws.
    @Test(arguments: [0, 1])
    func generatingStreamsThrowOnlyLooplErrors(_ which: Int) async {
        struct Odd: Error {}
        let stream = AsyncThrowingStream<ModelEvent, any Error>.generating { _ in
            if which == 0 { throw CancellationError() } else { throw Odd() }
        }
        do {
            for try await _ in stream {}
            Issue.record("the stream did not throw")
        } catch let error as LooplError {
            #expect(error.code == (which == 0 ? .cancelled : .generationFailed))
        } catch {
            Issue.record("not a LooplError: \(error)")
        }
    }
}
