import CVips
import Foundation

/// libvips, loaded and initialised on first use.
///
/// The `warmer` executable does not link libvips (see Sources/CVips/shim.h):
/// commands that never touch an image start without its hundred libraries.
struct Vips: @unchecked Sendable {
    // @unchecked: `table` points to a function table written once by
    // warmer_vips_load before `shared` is published, and never written again;
    // the libvips functions it holds are thread-safe.
    let table: UnsafePointer<warmer_vips>

    /// The process's libvips, or why it could not be loaded.
    static let shared: Result<Vips, VipsUnavailable> = {
        guard let table = warmer_vips_load() else {
            let reason = warmer_vips_load_error().map { String(cString: $0) } ?? "unknown error"
            return .failure(VipsUnavailable(reason: "cannot load libvips.so.42 (install libvips42): \(reason)"))
        }
        guard warmer_vips_init(table, "warmer") == 0 else {
            return .failure(VipsUnavailable(reason: "vips_init failed"))
        }
        // A server decodes each image once: libvips' operation cache would only hold memory.
        warmer_vips_cache_set_max(table, 0)
        return .success(Vips(table: table))
    }()

    /// Takes libvips' accumulated error text and clears it.
    func takeError() -> String {
        let message = warmer_vips_error_buffer(table).map { String(cString: $0) } ?? ""
        warmer_vips_error_clear(table)
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "unknown libvips error" : trimmed
    }

    /// The operation nickname (`jpegload_buffer`) of a libvips class name (`VipsForeignLoadJpegBuffer`).
    func nickname(ofType typeName: UnsafePointer<CChar>) -> String {
        guard let nickname = warmer_vips_nickname(table, typeName) else { return String(cString: typeName) }
        return String(cString: nickname)
    }
}

/// libvips could not be loaded or initialised.
struct VipsUnavailable: Error, Sendable {
    let reason: String
}
