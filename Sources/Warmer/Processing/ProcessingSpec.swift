import PipelineEngine

/// How a `processed` job transforms its image, in the wire format's compact
/// text form (docs/wire-format.md): `&`-separated steps, applied in order.
///
/// ```
/// thumbnail=320&format=webp&quality=80
/// resize=320x0&blur=8
/// resize=400x400,fill,crop&rounded=16&format=png
/// ```
///
/// | step | meaning |
/// |---|---|
/// | `thumbnail=N` | decode with shrink-on-load to at most N px on the longest side (at most once, applied first) |
/// | `resize=WxH[,fit\|fill][,crop][,upscale]` | resize; 0 for W or H keeps the aspect ratio; `fit` (default) or `fill`; `crop` to exactly W×H with `fill`; `upscale` lets smaller images grow |
/// | `blur=R` | Gaussian blur with radius (sigma) R |
/// | `circle` | cut to a circle (transparent outside) |
/// | `rounded=R` | round the corners with radius R px |
/// | `format=jpeg\|png\|webp\|avif` | output format (default: the source's) |
/// | `quality=1…100` | output quality (default: libvips') |
///
/// Steps are written canonically (`description`), so equal specs look equal.
struct ProcessingSpec: Sendable, Hashable, CustomStringConvertible {
    var thumbnail: ThumbnailOptions?
    var processors: [ImageProcessor] = []
    var format: ImageFormat?
    var quality: Int?

    /// The empty spec: the original image, re-encoded in its own format.
    init() {}

    /// Parses the wire form; the empty string is the empty spec.
    init(parsing text: String) throws(ProcessingSpecError) {
        for step in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = step.split(separator: "=", maxSplits: 1)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : nil
            switch (name, value) {
            case ("thumbnail", let value?):
                guard thumbnail == nil else { throw .invalid("thumbnail given twice") }
                thumbnail = ThumbnailOptions(maxPixelSize: try Self.positive(value, "thumbnail"))
            case ("resize", let value?):
                processors.append(.resize(try Self.resize(value)))
            case ("blur", let value?):
                guard let radius = Double(value), radius > 0, radius <= 1000 else { throw .invalid("blur needs a radius in (0, 1000]: '\(value)'") }
                processors.append(.gaussianBlur(radius: radius))
            case ("circle", nil):
                processors.append(.circle)
            case ("rounded", let value?):
                processors.append(.roundedCorners(radius: try Self.positive(value, "rounded")))
            case ("format", let value?):
                guard let parsed = ImageFormat(rawValue: value), [.jpeg, .png, .webp, .avif].contains(parsed) else {
                    throw .invalid("format must be jpeg, png, webp or avif: '\(value)'")
                }
                format = parsed
            case ("quality", let value?):
                guard let parsed = Int(value), (1...100).contains(parsed) else { throw .invalid("quality must be 1-100: '\(value)'") }
                quality = parsed
            default:
                throw .invalid("unknown step '\(step)'")
            }
        }
        if quality != nil, format == nil { throw .invalid("quality needs a format") }
    }

    /// Whether the spec changes nothing.
    var isEmpty: Bool { thumbnail == nil && processors.isEmpty && format == nil }

    /// The output encoding, when a format is given.
    var encoding: ImageEncoding? { format.map { ImageEncoding(format: $0, quality: quality) } }

    /// The canonical wire form.
    var description: String {
        var steps: [String] = []
        if let thumbnail { steps.append("thumbnail=\(thumbnail.maxPixelSize)") }
        for processor in processors {
            switch processor {
            case .resize(let resize):
                var step = "resize=\(resize.width ?? 0)x\(resize.height ?? 0)"
                if resize.contentMode == .aspectFill { step += ",fill" }
                if resize.crop { step += ",crop" }
                if resize.upscale { step += ",upscale" }
                steps.append(step)
            case .gaussianBlur(let radius):
                steps.append(radius == radius.rounded() ? "blur=\(Int(radius))" : "blur=\(radius)")
            case .circle:
                steps.append("circle")
            case .roundedCorners(let radius):
                steps.append("rounded=\(radius)")
            }
        }
        if let format { steps.append("format=\(format.rawValue)") }
        if let quality { steps.append("quality=\(quality)") }
        return steps.joined(separator: "&")
    }

    /// Applies the spec to a request.
    func apply(to request: inout ImageRequest) {
        request.thumbnail = thumbnail
        request.processors = processors
        request.encoding = encoding
    }

    private static func positive(_ value: String, _ name: String) throws(ProcessingSpecError) -> Int {
        guard let number = Int(value), number > 0, number <= 100_000 else {
            throw .invalid("\(name) needs a whole number of pixels in 1-100000: '\(value)'")
        }
        return number
    }

    private static func resize(_ value: String) throws(ProcessingSpecError) -> ImageProcessor.Resize {
        let parts = value.split(separator: ",").map(String.init)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
              width >= 0, height >= 0, width + height > 0, width <= 100_000, height <= 100_000 else {
            throw .invalid("resize needs WxH (0 keeps the aspect ratio): '\(value)'")
        }
        var contentMode = ImageProcessor.Resize.ContentMode.aspectFit
        var crop = false, upscale = false
        for modifier in parts.dropFirst() {
            switch modifier {
            case "fit": contentMode = .aspectFit
            case "fill": contentMode = .aspectFill
            case "crop": crop = true
            case "upscale": upscale = true
            default: throw .invalid("unknown resize option '\(modifier)' (fit, fill, crop, upscale)")
            }
        }
        return ImageProcessor.Resize(width: width == 0 ? nil : width, height: height == 0 ? nil : height,
                                     contentMode: contentMode, crop: crop, upscale: upscale)
    }
}

/// A processing spec that cannot be parsed.
enum ProcessingSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)

    var description: String {
        switch self {
        case .invalid(let reason): "Invalid processing spec: \(reason)"
        }
    }
}
