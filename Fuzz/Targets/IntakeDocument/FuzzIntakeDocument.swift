import WarmerInputProperties

/// libFuzzer's entry point (built only by scripts/fuzz.sh, with
/// `--sanitize fuzzer`, which links libFuzzer's `main`): checks
/// `FuzzTarget.intakeDocument`'s property on each input. The raw pointer is
/// libFuzzer's C interface; it is copied into an array at once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntakeDocument(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.intakeDocument.fuzz(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
