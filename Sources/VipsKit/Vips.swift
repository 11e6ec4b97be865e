import CVips
import Foundation

/// libvips, loaded and initialised on first use.
///
/// The `warmer` executable does not link libvips (see Sources/CVips/shim.h):
/// commands that never touch an image start without its hundred libraries.
///
/// Images come from `reading(_:_:)` (encoded bytes) or `black(width:height:)`,
/// as `VipsImageHandle`s; every operation on a handle makes a new one.
// @unchecked: `table` points to a function table written once by
// warmer_vips_load before `shared` is published, and never written again;
// the libvips functions it holds are thread-safe.
package struct Vips: @unchecked Sendable {
    let table: UnsafePointer<warmer_vips>

    /// The process's libvips, or why it could not be loaded.
    package static let shared: Result<Vips, VipsUnavailable> = {
        guard let table = warmer_vips_load() else {
            let reason = warmer_vips_load_error().map { String(cString: $0) } ?? "unknown error"
            return .failure(VipsUnavailable(reason: "cannot load libvips.so.42 (install libvips42): \(reason)"))
        }
        guard warmer_vips_init(table, "warmer") == 0 else {
            return .failure(VipsUnavailable(reason: "vips_init failed"))
        }
        // A server decodes each image once: libvips' operation cache would only hold memory.
        warmer_vips_cache_set_max(table, 0)
        // No ORC vector paths: they crash a multi-threaded server. Each
        // resize (reducev) and blur (convi) compiles an ORC program when it is
        // built and frees it when its image is released, on whichever thread
        // drops the last reference. libvips compiles under its global lock,
        // but frees without one, and liborc 0.4.33 frees code memory by
        // unlinking and merging chunks of a process-wide list with no lock
        // of its own: two releases at once, or a release during a compile,
        // corrupt the list (SIGSEGV in orc_code_chunk_merge, issue 23).
        // The C paths are what libvips runs without ORC; the cost is in
        // bench/README.md ("ORC off"), the analysis in docs/pipeline.md.
        warmer_vips_vector_set_enabled(table, 0)
        // A server computes many images at once, each on a stage queue's own
        // thread: one libvips thread per image, not a threadpool per image
        // competing for the same cores (bench/processed.sh: ~7% more images/s).
        // VIPS_CONCURRENCY, when set, still wins.
        if ProcessInfo.processInfo.environment["VIPS_CONCURRENCY"] == nil {
            warmer_vips_concurrency_set(table, 1)
        }
        return .success(Vips(table: table))
    }()

    /// Whether libvips would compile ORC vector programs for the operations
    /// it builds now; always `false` in Warmer (see `shared`).
    package var vectorPathsEnabled: Bool {
        warmer_vips_vector_isenabled(table) != 0
    }

    /// Takes libvips' accumulated error text and clears it, atomically.
    func takeError() -> String {
        var message = ""
        if let copy = warmer_vips_take_error(table) {
            message = String(cString: copy)
            warmer_vips_free(table, copy)
        }
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "unknown libvips error" : trimmed
    }

    /// The operation nickname (`jpegload_buffer`) of a libvips class name (`VipsForeignLoadJpegBuffer`).
    func nickname(ofType typeName: UnsafePointer<CChar>) -> String {
        guard let nickname = warmer_vips_nickname(table, typeName) else { return String(cString: typeName) }
        return String(cString: nickname)
    }

    /// Runs `body` with encoded image bytes that libvips may borrow.
    ///
    /// Images opened from `source` borrow `data`: they must not outlive
    /// `body` unless materialised (`VipsImageHandle.materialised()`) first.
    package func reading<Value, Failure: Error>(
        _ data: Data, _ body: (_ source: VipsSource) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        try data.withUnsafeBytes { bytes in
            Result { () throws(Failure) -> Value in try body(VipsSource(vips: self, bytes: bytes)) }
        }.get()
    }

    /// A new one-band 8-bit image of zeros, computed into memory so that it
    /// can be drawn on (`VipsImageHandle.fillCircle` and friends).
    package func black(width: Int, height: Int) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_black(table, $0, Int32(width), Int32(height)) }.materialised()
    }

    /// A new one-band float image of Gaussian noise: values around `mean`
    /// with a standard deviation of `sigma`, the same for the same `seed`.
    /// Lazy: its pixels are computed as an operation reads them.
    package func gaussianNoise(width: Int, height: Int, sigma: Double, mean: Double, seed: Int) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_gaussnoise(table, $0, Int32(width), Int32(height), sigma, mean, Int32(truncatingIfNeeded: seed)) }
    }
}

extension Vips {
    /// Runs a libvips call that writes one new image to its `out` argument,
    /// and takes ownership of that image (which keeps `retained` alive).
    /// - Throws: `VipsFailure` with libvips' (cleared) error text when the call fails.
    func making(
        retaining retained: (any AnyObject & Sendable)? = nil, _ operation: (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) throws(VipsFailure) -> VipsImageHandle {
        var out: OpaquePointer?
        let status = operation(&out)
        guard status == 0, let out else {
            if let out { warmer_vips_unref(table, UnsafeMutableRawPointer(out)) }
            throw VipsFailure(message: takeError())
        }
        return VipsImageHandle(taking: out, vips: self, retaining: retained)
    }
}
