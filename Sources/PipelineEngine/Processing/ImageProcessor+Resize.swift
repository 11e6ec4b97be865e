extension ImageProcessor {
    /// Scales an image to a target size, keeping its aspect ratio.
    ///
    /// - Both `width` and `height`: `.aspectFit` scales so the image fits
    ///   inside width×height; `.aspectFill` scales so it covers width×height,
    ///   and with `crop` then keeps the centre width×height.
    /// - Only one of them (the other nil): scales to that width (or height);
    ///   the other side follows the aspect ratio, and the content mode and
    ///   `crop` make no difference.
    /// - Without `upscale` the image is never enlarged: an image already
    ///   smaller than the target is left as is (with `.aspectFill` and `crop`,
    ///   a side longer than the target is still cropped to it).
    ///
    /// Resizing with neither a width nor a height fails with `processingFailed`.
    public struct Resize: Sendable, Hashable {
        /// How the image relates to the target rectangle.
        public enum ContentMode: String, Sendable, Hashable, CaseIterable {
            /// Fit inside the target: the result is at most width×height.
            case aspectFit
            /// Cover the target: the result is at least width×height.
            case aspectFill
        }

        /// Target width in pixels; nil to derive it from `height` and the aspect ratio.
        public let width: Int?
        /// Target height in pixels; nil to derive it from `width` and the aspect ratio.
        public let height: Int?
        /// Fit inside or fill the target rectangle.
        public let contentMode: ContentMode
        /// With `.aspectFill` and both sides given: crop the centre to exactly width×height.
        public let crop: Bool
        /// Whether an image smaller than the target may be enlarged.
        public let upscale: Bool

        /// A resize to `width`×`height`. A width or height of 0 or less means
        /// nil (derive it from the aspect ratio), so `Resize(width: 320, height: 0)`
        /// equals `Resize(width: 320)` and has the same identifier.
        public init(
            width: Int? = nil, height: Int? = nil, contentMode: ContentMode = .aspectFit,
            crop: Bool = false, upscale: Bool = false
        ) {
            self.width = width.flatMap { $0 > 0 ? $0 : nil }
            self.height = height.flatMap { $0 > 0 ? $0 : nil }
            self.contentMode = contentMode
            self.crop = crop
            self.upscale = upscale
        }

        /// `resize(w=W,h=H,MODE,crop=C,up=U)`: W and H in pixels (0 for nil),
        /// MODE `fit` or `fill`, C and U `0` or `1`. Stable across releases.
        public var identifier: String {
            let mode = contentMode == .aspectFit ? "fit" : "fill"
            return "resize(w=\(width ?? 0),h=\(height ?? 0),\(mode),crop=\(crop ? 1 : 0),up=\(upscale ? 1 : 0))"
        }
    }
}
