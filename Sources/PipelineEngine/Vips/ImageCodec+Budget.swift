extension ImageCodec {
    /// The bytes a decode holds at its peak, estimated from the header
    /// before any pixel is decoded: the 8-bit result (`bands` at most 4:
    /// CMYK becomes RGB, 16-bit becomes 8-bit), twice over when it must be
    /// rotated upright (the rotation is a second copy). A thumbnail holds
    /// its own size, counted twice for the shrink step's intermediate image;
    /// from a loader that cannot shrink on load (`shrinksOnLoad` false: PNG,
    /// GIF, HEIF without a usable embedded thumbnail) it first decodes every
    /// pixel, which counts too (measured: docs/memory.md).
    static func decodeCost(
        width: Int, height: Int, bands: Int, orientation: Int, thumbnail: ThumbnailOptions?, shrinksOnLoad: Bool
    ) -> Int {
        let bands = min(max(bands, 1), 4)
        if let thumbnail {
            let scale = min(1, Double(thumbnail.maxPixelSize) / Double(max(width, height)))
            let shrunk = (Double(width) * scale).rounded(.up) * (Double(height) * scale).rounded(.up)
            let result = Int(min(shrunk, Double(width * height))) * bands * 2
            return shrinksOnLoad ? result : result + width * height * bands
        }
        return width * height * bands * ((2...8).contains(orientation) ? 2 : 1)
    }

    /// The loaders libvips' thumbnail drives at a reduced size: JPEG (DCT
    /// scaling) and WebP (scaled decoding). HEIF is left out: only an
    /// embedded thumbnail of the right size spares a full decode.
    static let shrinkOnLoadLoaders: Set<String> = ["jpegload_buffer", "webpload_buffer"]

    /// Reserves `bytes` in `budget`, if any, waiting for room.
    /// - Throws: `overMemoryBudget` when `bytes` exceed the whole budget;
    ///   `decodingFailed` when `shouldStop` ended the wait.
    static func reserve(
        _ bytes: Int, in budget: MemoryBudget?, shouldStop: () -> Bool
    ) throws(ImageProcessingError) -> MemoryBudget.Reservation? {
        guard let budget else { return nil }
        do {
            return try budget.reserve(bytes, shouldStop: shouldStop)
        } catch .largerThanBudget {
            throw .overMemoryBudget(needed: bytes, budget: budget.capacity)
        } catch {
            throw .decodingFailed("cancelled while waiting for memory")
        }
    }
}
