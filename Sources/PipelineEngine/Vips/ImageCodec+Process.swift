import VipsKit

extension ImageCodec {
    /// Applies one processor, returning a new materialised image (or `image`
    /// itself when the processor leaves it unchanged). `image` is not modified
    /// and may be processed by other threads at the same time.
    /// - Throws: `invalidProcessing` when the processor, or what it would
    ///   produce from this image, breaks `limits` (checked before any work);
    ///   `processingFailed` with the processor's identifier when libvips fails.
    ///
    /// The result is charged to `budget`, if any, without waiting (its input
    /// holds budget already: waiting here could deadlock).
    static func process(
        _ image: DecodedImage, with processor: ImageProcessor, limits: ProcessingLimits = .default,
        budget: MemoryBudget? = nil
    ) throws(ImageProcessingError) -> DecodedImage {
        if let problem = limits.problem(with: processor) { throw .invalidProcessing(problem) }
        var outputPixels = image.width * image.height
        if case .resize(let resize) = processor, let plan = ResizePlan(resize, width: image.width, height: image.height) {
            if let problem = limits.problem(outputWidth: plan.outputWidth, height: plan.outputHeight) {
                throw .invalidProcessing(problem)
            }
            outputPixels = plan.outputWidth * plan.outputHeight
        }
        do {
            let source = try image.view()
            let result: VipsImageHandle?
            switch processor {
            case .resize(let resize): result = try resized(source, resize)
            case .gaussianBlur(let radius): result = try blurred(source, radius: radius)
            case .circle: result = try circle(source)
            case .roundedCorners(let radius): result = try roundedCorners(source, radius: radius)
            }
            guard let result else { return image }
            // At most one band more (an alpha band added by a shape).
            let reservation = budget?.charge(outputPixels * min(image.bandCount + 1, 4))
            return try DecodedImage(materialised: result.materialised(), sourceFormat: image.sourceFormat, reservation: reservation)
        } catch {
            throw .processingFailed(processor: processor.identifier, reason: error.message)
        }
    }

    /// `image` scaled (and cropped) as `resize` says, or nil when that changes nothing.
    private static func resized(_ image: VipsImageHandle, _ resize: ImageProcessor.Resize) throws(VipsFailure) -> VipsImageHandle? {
        guard let plan = ResizePlan(resize, width: image.width, height: image.height) else {
            throw VipsFailure(message: "a resize needs a width or a height")
        }
        if plan.isIdentity(width: image.width, height: image.height) { return nil }
        var result = image
        if plan.scaledWidth != image.width || plan.scaledHeight != image.height {
            let hscale = Double(plan.scaledWidth) / Double(image.width)
            let vscale = Double(plan.scaledHeight) / Double(image.height)
            result = try withPremultipliedAlpha(image) { source throws(VipsFailure) in
                try source.resized(horizontalScale: hscale, verticalScale: vscale)
            }
        }
        if let crop = plan.crop {
            result = try result.extractingArea(left: crop.left, top: crop.top, width: crop.width, height: crop.height)
        }
        return result
    }

    /// `image` blurred with a Gaussian of sigma `radius`, or nil for radius 0.
    private static func blurred(_ image: VipsImageHandle, radius: Double) throws(VipsFailure) -> VipsImageHandle? {
        guard radius.isFinite, radius >= 0 else { throw VipsFailure(message: "the radius must be a finite number ≥ 0, not \(radius)") }
        if radius == 0 { return nil }
        return try withPremultipliedAlpha(image) { source throws(VipsFailure) in
            try source.gaussianBlurred(sigma: radius)
        }
    }

    /// Runs a filter that mixes neighbouring pixels on `image` with its colour
    /// premultiplied by alpha, so transparent pixels' colour does not bleed
    /// into visible ones; returns 8-bit values. Images without alpha pass straight through.
    private static func withPremultipliedAlpha(
        _ image: VipsImageHandle, _ filter: (VipsImageHandle) throws(VipsFailure) -> VipsImageHandle
    ) throws(VipsFailure) -> VipsImageHandle {
        guard image.hasAlpha else { return try filter(image) }
        return try filter(image.premultiplied()).unpremultiplied().cast(to: .uchar)
    }
}
