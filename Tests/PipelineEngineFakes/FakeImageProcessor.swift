import PipelineEngine
import TestSupport

/// A processor (`ImageProcessing`) that logs each step by the processor's
/// identifier and returns its input unchanged; steps can be held at a gate.
public final class FakeImageProcessor: ImageProcessing {
    /// The identifier of every step that began, in order.
    public let steps = CallLog<String>()
    /// Steps wait here; open unless the test closes it with `holding`.
    public let gate: Gate

    /// A processor; with `holding`, every step waits until `gate.open()`.
    public init(holding: Bool = false) {
        gate = Gate(open: !holding)
    }

    /// How many steps applied `processor`.
    public func count(of processor: ImageProcessor) -> Int {
        steps.calls.filter { $0 == processor.identifier }.count
    }

    /// See `ImageProcessing`.
    public func process(
        _ image: DecodedImage, with processor: ImageProcessor, limits: ProcessingLimits, budget: MemoryBudget?
    ) throws(ImageProcessingError) -> DecodedImage {
        steps.record(processor.identifier)
        gate.pass()
        return image
    }
}
