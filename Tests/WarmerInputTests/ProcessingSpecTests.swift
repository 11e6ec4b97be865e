import PipelineEngine
import Testing
import WarmerInput

/// The processing spec's text form (docs/wire-format.md), which producers in
/// any language write and workers parse.
@Suite struct ProcessingSpecTests {
    @Test func parsesStepsInOrderAndPrintsThemCanonically() throws {
        let spec = try ProcessingSpec(parsing: "resize=400x400,fill,crop&blur=2&rounded=16&format=png")
        #expect(spec.thumbnail == nil)
        #expect(spec.processors == [
            .resize(.init(width: 400, height: 400, contentMode: .aspectFill, crop: true)),
            .gaussianBlur(radius: 2), .roundedCorners(radius: 16),
        ])
        #expect(spec.encoding == OutputEncoding(format: .png))
        #expect(spec.description == "resize=400x400,fill,crop&blur=2&rounded=16&format=png")
        #expect(try ProcessingSpec(parsing: spec.description) == spec)
    }

    @Test func theEmptySpecChangesNothing() throws {
        #expect(try ProcessingSpec(parsing: "").isEmpty)
    }

    @Test(arguments: [
        "bogus=1", "resize=big", "resize=0x0", "resize=10x10,sideways", "blur=-1", "thumbnail=0",
        "thumbnail=10&thumbnail=20", "format=tiff", "quality=101&format=jpeg", "quality=80", "circle=3",
        // Once crashed every worker that parsed them (issue 10).
        "=", "resize=,", "resize=,,", "==", "=5", "&=&", "resize=", "resize=x", "resize=10x", "resize=x10,fill",
        // Numbers are plain decimal digits.
        "thumbnail=+5", "thumbnail=0x10", "quality=0x10&format=jpeg", "blur=nan", "blur=inf", "blur=1e1", "blur=-0.5",
        "blur=.5", "resize=1e3x0", "rounded=99999999999999999999",
    ])
    func refusesMalformedSpecs(_ text: String) {
        #expect(throws: ProcessingSpecError.self) { try ProcessingSpec(parsing: text) }
    }

    @Test(arguments: [
        "resize=30000x0,upscale", "resize=0x10001", "resize=8000x8000", "thumbnail=10001", "blur=1000", "blur=50.5",
        Array(repeating: "blur=1", count: 9).joined(separator: "&"),
        Array(repeating: "blur=100", count: 113).joined(separator: "&"),
        "format=png&" + String(repeating: "circle&", count: 200),
    ])
    func refusesSpecsBeyondTheProcessingLimits(_ text: String) {
        #expect(throws: ProcessingSpecError.self) { try ProcessingSpec(parsing: text) }
    }

    @Test func acceptsSpecsAtTheLimits() throws {
        let spec = try ProcessingSpec(parsing: "resize=10000x4000,upscale&blur=50&blur=0.5&rounded=10000")
        #expect(spec.processors.count == 4)
        #expect(spec.processors[1] == .gaussianBlur(radius: 50))
        let eight = Array(repeating: "blur=1", count: 8).joined(separator: "&")
        #expect(try ProcessingSpec(parsing: eight).processors.count == 8)
    }

    @Test func largerLimitsAcceptLargerOutputs() throws {
        let limits = ProcessingLimits(maxOutputSide: 30_000, maxOutputPixelCount: 1_000_000_000)
        #expect(try ProcessingSpec(parsing: "resize=30000x0,upscale", limits: limits).processors.count == 1)
    }
}

/// Numbers in the canonical form: what `description` writes must parse.
@Suite struct ProcessingSpecNumberTests {
    @Test(arguments: [
        (0.00001, "0.00001"), (0.000015, "0.000015"), (0.0001, "0.0001"), (0.5, "0.5"), (12.25, "12.25"), (8, "8"),
        (1e-10, "0.0000000001"), (1e20, "100000000000000000000"), (-0.00002, "-0.00002"), (1.5e-7, "0.00000015"),
    ])
    func decimalTextIsPlainDecimal(_ value: Double, _ text: String) {
        #expect(ProcessingSpec.decimalText(value) == text)
    }

    @Test func aTinyBlurRadiusSurvivesTheCanonicalForm() throws {
        // Found by the processing-spec fuzzer: 'blur=0.00001' was written back as
        // 'blur=1e-05', so `warmer enqueue` queued a spec every worker refused.
        let spec = try ProcessingSpec(parsing: "blur=0.00001")
        #expect(spec.description == "blur=0.00001")
        #expect(try ProcessingSpec(parsing: spec.description) == spec)
    }
}
