/// Limits on what processing may ask for, so that no request — however it
/// was written — can make one image cost minutes of CPU or gigabytes of
/// memory. `ImagePipeline` checks them before each processing step
/// (`ImageProcessingError.invalidProcessing`); the worker also checks a
/// job's spec before it runs and `warmer enqueue` before it enqueues.
///
/// | limit | default |
/// |---|---|
/// | `maxOutputSide` | 10,000 px: the width or height a resize may produce |
/// | `maxOutputPixelCount` | 40,000,000: width × height a resize may produce |
/// | `maxBlurSigma` | 50: a Gaussian blur's standard deviation, in pixels |
/// | `maxProcessorCount` | 8: processors in one request |
///
/// Thumbnails only ever shrink, so they cannot exceed these; rounded-corner
/// radii are capped at half the shorter side by the processor itself.
public struct ProcessingLimits: Sendable, Hashable {
    /// The largest width or height a processor may produce.
    public var maxOutputSide: Int
    /// The largest width × height a processor may produce.
    public var maxOutputPixelCount: Int
    /// The largest Gaussian blur sigma.
    public var maxBlurSigma: Double
    /// The most processors one request may chain.
    public var maxProcessorCount: Int

    /// Limits with the documented defaults, or the values given.
    public init(
        maxOutputSide: Int = 10_000, maxOutputPixelCount: Int = 40_000_000,
        maxBlurSigma: Double = 50, maxProcessorCount: Int = 8
    ) {
        self.maxOutputSide = maxOutputSide
        self.maxOutputPixelCount = maxOutputPixelCount
        self.maxBlurSigma = maxBlurSigma
        self.maxProcessorCount = maxProcessorCount
    }

    /// The documented defaults.
    public static let `default` = ProcessingLimits()

    /// Why `processors` break a limit whatever the image, or nil: too many
    /// processors, a blur too strong, a resize target larger than allowed.
    public func problem(with processors: [ImageProcessor]) -> String? {
        if processors.count > maxProcessorCount {
            return "\(processors.count) processing steps, at most \(maxProcessorCount) are allowed"
        }
        for processor in processors {
            if let problem = problem(with: processor) { return problem }
        }
        return nil
    }

    /// Why `processor` breaks a limit whatever the image, or nil.
    func problem(with processor: ImageProcessor) -> String? {
        switch processor {
        case .gaussianBlur(let sigma):
            guard sigma.isFinite, sigma >= 0, sigma <= maxBlurSigma else {
                return "blur sigma \(sigma) is outside 0-\(Self.text(maxBlurSigma))"
            }
        case .resize(let resize):
            let width = resize.width ?? 0, height = resize.height ?? 0
            guard width >= 0, height >= 0, width <= maxOutputSide, height <= maxOutputSide else {
                return "resize to \(width)×\(height) exceeds the largest side, \(maxOutputSide) px"
            }
            if width > 0, height > 0, width * height > maxOutputPixelCount {
                return "resize to \(width)×\(height) exceeds the largest output, \(maxOutputPixelCount) pixels"
            }
        case .roundedCorners(let radius):
            guard radius >= 0, radius <= maxOutputSide else {
                return "rounded radius \(radius) is outside 0-\(maxOutputSide)"
            }
        case .circle:
            break
        }
        return nil
    }

    /// Why an output of `width`×`height` breaks a limit, or nil.
    func problem(outputWidth width: Int, height: Int) -> String? {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width <= maxOutputSide, height <= maxOutputSide else {
            return "the output would be \(width)×\(height), larger than \(maxOutputSide) px on a side"
        }
        guard !overflow, pixels <= maxOutputPixelCount else {
            return "the output would be \(width)×\(height), more than \(maxOutputPixelCount) pixels"
        }
        return nil
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
