import Testing
@testable import Warmer

/// The processing flags of `enqueue`, `warm` and `cache`.
@Suite struct ProcessingOptionsTests {
    @Test func aTinyBlurFlagBuildsAValidSpec() throws {
        // `--blur 0.00001` used to become 'blur=1e-05', which the spec parser refuses.
        let options = try ProcessingOptions.parse(["--blur", "0.00001", "--format", "png"])
        #expect(try options.spec().description == "blur=0.00001&format=png")
    }
}
