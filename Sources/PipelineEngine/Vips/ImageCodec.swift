import Foundation
import VipsKit

/// Decoding, processing and encoding with libvips.
///
/// Every function is synchronous and blocks while libvips computes: call them
/// from dedicated threads, never from Swift's cooperative pool. Every image
/// they return is materialised (computed into memory), so it may feed several
/// processors or encoders at once, from several threads.
///
/// Errors take (copy and clear, atomically) libvips' error buffer. That
/// buffer is one per process, so when two threads fail at the same moment a
/// message may carry both failures' texts; the error case is always right.
enum ImageCodec {
    /// Decodes encoded image data.
    ///
    /// Before decoding a single pixel, refuses data whose loader is not in
    /// `limits.allowedLoaders` (`unsupportedFormat`) and images whose header
    /// announces more than `limits.maxPixelCount` pixels (`tooManyPixels`).
    /// Truncated or corrupt data fails with `decodingFailed` instead of
    /// coming back padded with grey: JPEG fails on any libjpeg warning
    /// (`fail_on=warning`: "premature end of data segment", the mark of a
    /// file cut short, is only a warning to libjpeg), the other formats on
    /// truncation (`fail_on=truncated`: PNG's many harmless warnings, such as
    /// an sRGB profile libpng dislikes, do not fail).
    ///
    /// The result is upright (EXIF orientation applied), 8-bit sRGB or grey
    /// (CMYK, 16-bit and ICC-profiled images are converted), with alpha when
    /// the source had it. With `thumbnail`, it is decoded by shrink-on-load to
    /// a longest side of at most `thumbnail.maxPixelSize`.
    ///
    /// With a `budget`, the decode first reserves what its pixels will take
    /// (estimated from the header, see `decodeCost`), waiting for room;
    /// the decoded image then holds that share until it is released. An
    /// image larger than the whole budget fails with `overMemoryBudget`.
    /// `shouldStop` ends the wait (the task was cancelled).
    ///
    /// `data` is needed only during the call.
    static func decode(
        _ data: Data, thumbnail: ThumbnailOptions? = nil, limits: ImageLimits = .default,
        budget: MemoryBudget? = nil, shouldStop: () -> Bool = { false }
    ) throws(ImageProcessingError) -> DecodedImage {
        let vips = try libvips()
        guard !data.isEmpty else { throw .unsupportedFormat(loader: ImageProcessingError.unrecognisedLoader) }
        // libvips borrows the bytes: everything up to materialisation happens
        // while `reading` keeps them alive.
        return try vips.reading(data) { source throws(ImageProcessingError) in
            try decode(source, data: data, thumbnail: thumbnail, limits: limits, budget: budget, shouldStop: shouldStop)
        }
    }

    /// `decode(_:thumbnail:limits:budget:shouldStop:)` on `data`, lent to libvips as `source`.
    private static func decode(
        _ source: VipsSource, data: Data, thumbnail: ThumbnailOptions?, limits: ImageLimits,
        budget: MemoryBudget?, shouldStop: () -> Bool
    ) throws(ImageProcessingError) -> DecodedImage {
        let loader = try allowedLoader(of: source, limits: limits)
        // Header only: sequential access decodes nothing until pixels are asked for.
        let failOn: Vips.FailOn = loader == "jpegload_buffer" ? .warning : .truncated
        let header: VipsImageHandle
        do {
            header = try source.openSequential(failOn: failOn)
        } catch {
            throw .decodingFailed("\(loader): \(error.message)")
        }
        let (width, height) = (header.width, header.height)
        guard width > 0, height > 0 else { throw .decodingFailed("\(loader): empty image \(width)×\(height)") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= limits.maxPixelCount else {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixelCount)
        }
        // The result, and what the loader holds beside it while it decodes
        // (a progressive JPEG's coefficients, a GIF's frame buffer…).
        let cost = decodeCost(width: width, height: height, bands: header.bands, orientation: header.orientation,
                              thumbnail: thumbnail, shrinksOnLoad: shrinkOnLoadLoaders.contains(loader))
            + LoaderBuffers.bytes(of: data, loader: loader, width: width, height: height, bands: header.bands)
        let reservation = try reserve(cost, in: budget, shouldStop: shouldStop)
        let format = ImageFormat(sniffing: data)

        do {
            if let thumbnail {
                // A second, independent load: shrink-on-load needs to drive the loader itself.
                let shrunk = try source.thumbnail(maxSize: min(thumbnail.maxPixelSize, 10_000_000), failOn: failOn)  // libvips' own maximum
                // vips_thumbnail already rotated upright and applied the ICC profile.
                return try DecodedImage(materialised: normalised(shrunk, applyICCProfile: false).materialised(),
                                        sourceFormat: format, reservation: reservation)
            }
            // Computing the sequential pipeline once, top to bottom, decodes
            // every pixel; failures (truncation) surface here.
            let decoded = try normalised(header, applyICCProfile: true).materialised()
            return try DecodedImage(materialised: upright(decoded), sourceFormat: format, reservation: reservation)
        } catch {
            throw .decodingFailed("\(loader): \(error.message)")
        }
    }

    /// The nickname of the loader libvips would use for the bytes, if `limits` allows it.
    private static func allowedLoader(of source: VipsSource, limits: ImageLimits) throws(ImageProcessingError) -> String {
        let loader: String
        do {
            loader = try source.loader()
        } catch {
            throw .unsupportedFormat(loader: ImageProcessingError.unrecognisedLoader)
        }
        guard limits.allowedLoaders.contains(loader) else { throw .unsupportedFormat(loader: loader) }
        return loader
    }

    /// `image` rotated and flipped upright by its EXIF orientation, materialised.
    /// Works on a materialised image: rotating needs random access, which a
    /// sequential decode cannot give.
    private static func upright(_ image: VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
        guard (2...8).contains(image.orientation) else { return image }
        return try image.autorotated().materialised()
    }

    /// The process's libvips.
    /// - Throws: `libvipsUnavailable` when it cannot be loaded.
    static func libvips() throws(ImageProcessingError) -> Vips {
        switch Vips.shared {
        case .success(let vips): vips
        case .failure(let error): throw .libvipsUnavailable(error.reason)
        }
    }
}
