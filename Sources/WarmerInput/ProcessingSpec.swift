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
/// | `blur=R` | Gaussian blur with radius (sigma) R, in (0, 50] |
/// | `circle` | cut to a circle (transparent outside) |
/// | `rounded=R` | round the corners with radius R px |
/// | `format=jpeg\|png\|webp\|avif` | output format (default: the source's) |
/// | `quality=1…100` | output quality (default: libvips') |
///
/// Steps are written canonically (`description`), so equal specs look equal.
/// Limits (docs/pipeline.md, "Hostile input"): at most 1,024 bytes and 8
/// processing steps; sides at most 10,000 px and a resize's W×H at most 40
/// megapixels by default (`ProcessingLimits`).
public struct ProcessingSpec: Sendable, Hashable, CustomStringConvertible {
    /// The thumbnail to decode to (`thumbnail=N`), applied before the processors.
    public var thumbnail: ThumbnailOptions?
    /// The processing steps, in the order written.
    public var processors: [ImageProcessor] = []
    /// The output format (`format=`); `nil` keeps the source's.
    public var format: ImageFormat?
    /// The output quality (`quality=`), 1-100; needs a `format`.
    public var quality: Int?

    /// The empty spec: the original image, re-encoded in its own format.
    public init() {}

    /// Parses the wire form; the empty string is the empty spec.
    ///
    /// Every number is plain decimal digits (a blur sigma may have a
    /// fraction); anything else, and any spec that breaks `limits` whatever
    /// the image (see `ProcessingLimits`), is refused with the reason.
    public init(parsing text: String, limits: ProcessingLimits = .default) throws(ProcessingSpecError) {
        guard text.utf8.count <= Self.maxLength else {
            throw .invalid("longer than \(Self.maxLength) bytes")
        }
        for step in text.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring, value: Substring?
            if let equals = step.firstIndex(of: "=") {
                name = step[..<equals]
                value = step[step.index(after: equals)...]
            } else {
                (name, value) = (step, nil)
            }
            switch (name, value) {
            case ("thumbnail", let value?):
                guard thumbnail == nil else { throw .invalid("thumbnail given twice") }
                thumbnail = ThumbnailOptions(maxPixelSize: try Self.pixels(value, "thumbnail", limit: limits.maxOutputSide))
            case ("resize", let value?):
                processors.append(.resize(try Self.resize(value, limits: limits)))
            case ("blur", let value?):
                guard let sigma = Self.decimal(value), sigma > 0, sigma <= limits.maxBlurSigma else {
                    throw .invalid("blur needs a radius in (0, \(Self.decimalText(limits.maxBlurSigma))]: '\(value)'")
                }
                processors.append(.gaussianBlur(radius: sigma))
            case ("circle", nil):
                processors.append(.circle)
            case ("rounded", let value?):
                processors.append(.roundedCorners(radius: try Self.pixels(value, "rounded", limit: limits.maxOutputSide)))
            case ("format", let value?):
                guard let parsed = ImageFormat(rawValue: String(value)), [.jpeg, .png, .webp, .avif].contains(parsed) else {
                    throw .invalid("format must be jpeg, png, webp or avif: '\(value)'")
                }
                format = parsed
            case ("quality", let value?):
                guard let parsed = Self.integer(value), (1...100).contains(parsed) else {
                    throw .invalid("quality must be 1-100: '\(value)'")
                }
                quality = parsed
            default:
                throw .invalid("unknown step '\(step)'")
            }
        }
        if let problem = limits.problem(with: processors) { throw .invalid(problem) }
        if quality != nil, format == nil { throw .invalid("quality needs a format") }
    }

    /// Whether the spec changes nothing.
    public var isEmpty: Bool { thumbnail == nil && processors.isEmpty && format == nil }

    /// The output encoding, when a format is given.
    public var encoding: OutputEncoding? { format.map { OutputEncoding(format: $0, quality: quality) } }

    /// The canonical wire form.
    public var description: String {
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
                steps.append("blur=" + Self.decimalText(radius))
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

    /// The longest spec accepted, in bytes.
    public static let maxLength = 1024

    /// A whole number of pixels in 1...`limit`.
    private static func pixels(_ value: Substring, _ name: String, limit: Int) throws(ProcessingSpecError) -> Int {
        guard let number = integer(value), number > 0, number <= limit else {
            throw .invalid("\(name) needs a whole number of pixels in 1-\(limit): '\(value)'")
        }
        return number
    }

    private static func resize(_ value: Substring, limits: ProcessingLimits) throws(ProcessingSpecError) -> ImageProcessor.Resize {
        var parts = value.split(separator: ",", omittingEmptySubsequences: false)[...]
        let size = (parts.popFirst() ?? "").split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = size.first.flatMap(integer), let height = size.last.flatMap(integer),
              width + height > 0 else {
            throw .invalid("resize needs WxH (0 keeps the aspect ratio): '\(value)'")
        }
        guard width <= limits.maxOutputSide, height <= limits.maxOutputSide else {
            throw .invalid("resize sides must be at most \(limits.maxOutputSide) px: '\(value)'")
        }
        var contentMode = ImageProcessor.Resize.ContentMode.aspectFit
        var crop = false, upscale = false
        for modifier in parts {
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

    /// 1 to 9 decimal digits, nothing else (no sign, no spaces).
    static func integer(_ text: Substring) -> Int? {
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// Decimal digits with an optional fraction (`2`, `0.5`, `12.25`), at most 12 characters.
    static func decimal(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard text.utf8.count <= 12, let whole = parts.first, integer(whole) != nil,
              parts.count == 1 || parts.last.map({ integer($0) != nil }) == true else { return nil }
        return Double(text)
    }

    /// `value` as the wire form writes numbers: plain decimal digits, a
    /// fraction only when needed (`8`, `0.5`, `0.00001`), never an exponent
    /// (Swift prints `1e-05`, which no spec parser takes). The digits are the
    /// shortest that read back as `value`. Not finite: `nan`, `inf`, `-inf`.
    public static func decimalText(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 9e18 { return String(Int(value)) }
        let shortest = "\(value)"
        guard let e = shortest.firstIndex(of: "e"), let exponent = Int(shortest[shortest.index(after: e)...]) else {
            return shortest
        }
        var mantissa = shortest[..<e]
        let sign = mantissa.hasPrefix("-") ? "-" : ""
        if !sign.isEmpty { mantissa = mantissa.dropFirst() }
        let digits = Array(mantissa.filter { $0 != "." })
        // Where the decimal point goes in `digits`, after the shift.
        let point = (mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count)
            + exponent
        if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + String(digits) }
        if point >= digits.count { return sign + String(digits) + String(repeating: "0", count: point - digits.count) }
        return sign + String(digits[..<point]) + "." + String(digits[point...])
    }

}
