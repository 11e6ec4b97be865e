/// The geometry of one `ImageProcessor.Resize` for one source size: how large
/// to scale, then which rectangle to keep. Pure arithmetic, no libvips.
struct ResizePlan: Sendable, Equatable {
    /// Width after scaling.
    let scaledWidth: Int
    /// Height after scaling.
    let scaledHeight: Int
    /// The centre rectangle to keep after scaling, or nil to keep everything.
    let crop: Rectangle?

    /// A rectangle in pixels.
    struct Rectangle: Sendable, Equatable {
        let left: Int
        let top: Int
        let width: Int
        let height: Int
    }

    /// Width of the result (after the crop, if any).
    var outputWidth: Int { crop?.width ?? scaledWidth }
    /// Height of the result (after the crop, if any).
    var outputHeight: Int { crop?.height ?? scaledHeight }

    /// Whether the plan leaves a `width`×`height` image exactly as it is.
    func isIdentity(width: Int, height: Int) -> Bool {
        scaledWidth == width && scaledHeight == height && crop == nil
    }

    /// Plans `resize` for a `width`×`height` source.
    /// - Returns: nil when `resize` has neither a width nor a height, or the
    ///   source is empty.
    init?(_ resize: ImageProcessor.Resize, width: Int, height: Int) {
        guard width > 0, height > 0 else { return nil }
        let horizontal = resize.width.map { Double($0) / Double(width) }
        let vertical = resize.height.map { Double($0) / Double(height) }
        var scale: Double
        switch (horizontal, vertical) {
        case (nil, nil): return nil
        case (let horizontal?, nil): scale = horizontal
        case (nil, let vertical?): scale = vertical
        case (let horizontal?, let vertical?):
            scale = resize.contentMode == .aspectFill ? max(horizontal, vertical) : min(horizontal, vertical)
        }
        if !resize.upscale { scale = min(scale, 1) }
        // The side that decides the scale lands exactly on its target:
        // width * (target / width) rounds back to target.
        scaledWidth = max(1, Int((Double(width) * scale).rounded()))
        scaledHeight = max(1, Int((Double(height) * scale).rounded()))

        if resize.contentMode == .aspectFill, resize.crop, let targetWidth = resize.width, let targetHeight = resize.height {
            let keptWidth = min(targetWidth, scaledWidth)
            let keptHeight = min(targetHeight, scaledHeight)
            if keptWidth < scaledWidth || keptHeight < scaledHeight {
                crop = Rectangle(
                    left: (scaledWidth - keptWidth) / 2, top: (scaledHeight - keptHeight) / 2,
                    width: keptWidth, height: keptHeight
                )
                return
            }
        }
        crop = nil
    }
}
