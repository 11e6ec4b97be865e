import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("ImageHeader")
struct ImageHeaderTests {
    @Test(arguments: Origin.Format.allCases)
    func readsDimensionsWithoutDecoding(_ format: Origin.Format) throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("header"), width: 123, height: 45, format: format)
        let header = try ImageHeader(data: Data(contentsOf: file))
        #expect(header.width == 123)
        #expect(header.height == 45)
        #expect(header.loader.hasPrefix(format == .jpeg ? "jpegload" : "\(format.rawValue)load"))
    }

    @Test func refusesDataThatIsNotAnImage() {
        #expect(throws: ImageHeaderError.self) { try ImageHeader(data: Data("<html>nope</html>".utf8)) }
    }
}
