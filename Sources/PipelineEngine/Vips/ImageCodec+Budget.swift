extension ImageCodec {
    /// The bytes a decode holds at its peak, estimated from the header
    /// before any pixel is decoded: the 8-bit result (`bands` at most 4:
    /// CMYK becomes RGB, 16-bit becomes 8-bit), twice over when it must be
    /// rotated upright (the rotation is a second copy). A thumbnail decoded
    /// by shrink-on-load holds only its own size, counted twice for the
    /// shrink step's intermediate image.
    static func decodeCost(width: Int, height: Int, bands: Int, orientation: Int, thumbnail: ThumbnailOptions?) -> Int {
        let bands = min(max(bands, 1), 4)
        if let thumbnail {
            let scale = min(1, Double(thumbnail.maxPixelSize) / Double(max(width, height)))
            let shrunk = (Double(width) * scale).rounded(.up) * (Double(height) * scale).rounded(.up)
            return Int(min(shrunk, Double(width * height))) * bands * 2
        }
        return width * height * bands * ((2...8).contains(orientation) ? 2 : 1)
    }

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
