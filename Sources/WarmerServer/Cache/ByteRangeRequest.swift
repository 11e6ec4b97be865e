import Foundation

/// What a `Range` header asks of an entity of a given size (RFC 9110,
/// section 14): one range `bytes=a-b`, `bytes=a-` or `bytes=-n`.
///
/// A header this server does not answer with a part — another unit, a
/// syntax error, several ranges — is ignored, and the whole entity is sent
/// with 200 (RFC 9110 lets a server ignore `Range`; several ranges would need
/// `multipart/byteranges`, which image clients do not use).
enum ByteRangeRequest: Equatable {
    /// Send everything (no `Range`, or one this server ignores).
    case whole
    /// Send these bytes, with 206 and `Content-Range`.
    case part(ClosedRange<Int>)
    /// No byte of the range exists: 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// The answer to `header` for an entity of `size` bytes.
    init(header: String?, size: Int) {
        guard let header else { self = .whole; return }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { self = .whole; return }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // -n: the last n bytes.
            guard let count = Self.number(last) else { self = .whole; return }
            guard count > 0, size > 0 else { self = .unsatisfiable; return }
            self = .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Self.number(first) else { self = .whole; return }
        var end = size - 1
        if !last.isEmpty {
            guard let given = Self.number(last), given >= start else { self = .whole; return }
            end = min(given, size - 1)
        }
        guard start < size else { self = .unsatisfiable; return }
        self = .part(start...end)
    }

    /// A non-negative decimal number of digits only; huge values saturate.
    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text) ?? Int.max
    }
}
