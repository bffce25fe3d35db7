import Glibc
import LooplFuzz

/// The target named by LOOPL_FUZZ_TARGET (scripts/fuzz sets it).
let selected: FuzzTarget? = getenv("LOOPL_FUZZ_TARGET").flatMap { FuzzTarget.named(String(cString: $0)) }

/// libFuzzer's set-up hook: checks the target and, when LOOPL_FUZZ_DICT names a file, writes the
/// target's dictionary there for `-dict=`.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard let target = selected else {
        let message = "Set LOOPL_FUZZ_TARGET to one of: \(FuzzTarget.all.map(\.name).joined(separator: ", ")).\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
    if let path = getenv("LOOPL_FUZZ_DICT"), let file = fopen(path, "w") {
        for word in target.dictionary { fputs(FuzzTarget.dictionaryLine(word) + "\n", file) }
        fclose(file)
    }
    return 0
}

/// libFuzzer's entry point: runs the selected target on one input; a broken property aborts, so
/// that libFuzzer keeps the input as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if let broken = selected?.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []) {
        let message = "[fuzz] property broken: \(broken)\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        abort()
    }
    return 0
}
