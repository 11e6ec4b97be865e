import Foundation
import CVips

/// Process-wide libvips set-up and error handling.
enum Vips {
    private static let initialisation: Bool = {
        guard vips_init("warmer") == 0 else { return false }
        // A server decodes each image once: libvips' operation cache would only hold memory.
        vips_cache_set_max(0)
        return true
    }()

    /// Initialises libvips once. Returns false if it could not start.
    static func ensureInitialised() -> Bool {
        initialisation
    }

    /// The operation nickname (`jpegload_buffer`) of a libvips class name (`VipsForeignLoadJpegBuffer`).
    static func nickname(ofType typeName: UnsafePointer<CChar>) -> String {
        guard let nickname = vips_nickname_find(g_type_from_name(typeName)) else { return String(cString: typeName) }
        return String(cString: nickname)
    }

    /// Takes libvips' accumulated error text and clears it.
    static func takeError() -> String {
        let message = String(cString: vips_error_buffer()).trimmingCharacters(in: .whitespacesAndNewlines)
        vips_error_clear()
        return message.isEmpty ? "unknown libvips error" : message
    }
}
