import Foundation

/// The frame header (SOFn) of a JPEG file: its size, whether it is
/// progressive, and each component's sampling factors. Read by walking the
/// marker segments from the start of the file; nothing is decoded.
struct JPEGFrameHeader: Equatable {
    /// One colour component's sampling factors (1…4 each).
    struct Component: Equatable {
        let horizontal: Int
        let vertical: Int
    }

    let width: Int
    let height: Int
    /// SOF2, SOF6, SOF10 or SOF14: decoded in several scans over the whole image.
    let isProgressive: Bool
    let components: [Component]

    /// The frame header of `data`, or nil when it is not a JPEG or none is
    /// found before the first scan.
    init?(_ data: Data) {
        let bytes = [UInt8](data.prefix(1 << 20))  // headers (EXIF, ICC…) come first; 1 MiB is plenty
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { index += 2; continue }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2 else { return nil }
            // SOF0…SOF15 but DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let start = index + 4
                guard start + 6 <= bytes.count else { return nil }
                height = Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
                width = Int(bytes[start + 3]) << 8 | Int(bytes[start + 4])
                let count = Int(bytes[start + 5])
                guard count > 0, start + 6 + count * 3 <= bytes.count else { return nil }
                components = (0..<count).map { n in
                    let sampling = bytes[start + 6 + n * 3 + 1]
                    return Component(horizontal: max(1, Int(sampling >> 4)), vertical: max(1, Int(sampling & 0x0F)))
                }
                isProgressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
                return
            }
            if marker == 0xDA { return nil }  // a scan before any frame header
            index += 2 + length
        }
        return nil
    }
}
