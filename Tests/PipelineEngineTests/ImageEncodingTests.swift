import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("Image encoding")
struct ImageEncodingTests {
    let files: ImageFiles
    /// 200×150 RGB noise.
    let image: DecodedImage

    init() throws {
        files = try ImageFiles()
        image = try ImageCodec.decode(files.make(width: 200, height: 150, format: "png"))
    }

    @Test(arguments: [
        (ImageFormat.jpeg, "jpegload_buffer"), (.png, "pngload_buffer"), (.webp, "webpload_buffer"), (.avif, "heifload_buffer"),
    ])
    func eachEncoderRoundTrips(_ format: ImageFormat, loader: String) throws {
        let data = try ImageCodec.encode(image, as: OutputEncoding(format: format, quality: 80))
        let header = try ImageHeader(data: data)
        #expect(header.loader == loader)
        #expect([header.width, header.height] as [Int] == [200, 150])
        let decoded = try ImageCodec.decode(data)
        #expect([decoded.width, decoded.height] as [Int] == [200, 150])
    }

    @Test func avifIsHEIFWithAnAVIFBrand() throws {
        let data = try ImageCodec.encode(image, as: OutputEncoding(format: .avif))
        // ISO BMFF: box size (4 bytes), "ftyp", then the major brand.
        #expect(String(decoding: data.dropFirst(4).prefix(8), as: UTF8.self) == "ftypavif")
    }

    @Test func jpegQualityChangesTheSize() throws {
        let low = try ImageCodec.encode(image, as: OutputEncoding(format: .jpeg, quality: 20))
        let high = try ImageCodec.encode(image, as: OutputEncoding(format: .jpeg, quality: 95))
        #expect(low.count < high.count)
        let lowWebP = try ImageCodec.encode(image, as: OutputEncoding(format: .webp, quality: 20))
        let highWebP = try ImageCodec.encode(image, as: OutputEncoding(format: .webp, quality: 95))
        #expect(lowWebP.count < highWebP.count)
    }

    @Test func pngAndWebPKeepTransparency() throws {
        let circle = try ImageCodec.process(image, with: .circle)
        for format in [ImageFormat.png, .webp] {
            let decoded = try ImageCodec.decode(ImageCodec.encode(circle, as: OutputEncoding(format: format, quality: 100)))
            #expect(decoded.hasAlpha, "\(format)")
            #expect(try decoded.pixel(x: 0, y: 0)[3] == 0, "\(format)")
            #expect(try decoded.pixel(x: 75, y: 75)[3] == 255, "\(format)")
        }
    }

    @Test func jpegFlattensTransparencyOntoWhite() throws {
        let circle = try ImageCodec.process(image, with: .circle)
        let decoded = try ImageCodec.decode(ImageCodec.encode(circle, as: OutputEncoding(format: .jpeg, quality: 95)))
        #expect(!decoded.hasAlpha)
        #expect(decoded.bandCount == 3)
        let corner = try decoded.pixel(x: 0, y: 0)
        #expect(corner.allSatisfy { $0 >= 245 }, "a transparent corner becomes white, got \(corner)")
    }

    @Test func greyImagesEncodeInEveryFormat() throws {
        let grey = try ImageCodec.decode(files.make(width: 30, height: 20, grey: true))
        #expect(grey.bandCount == 1)
        for format in ImageFormat.allCases where format.isEncodable {
            let data = try ImageCodec.encode(grey, as: OutputEncoding(format: format))
            #expect(try ImageHeader(data: data).width == 30, "\(format)")
        }
    }

    @Test(arguments: [ImageFormat.gif, .heif])
    func formatsThatCannotBeEncodedFailClearly(_ format: ImageFormat) throws {
        #expect(!format.isEncodable)
        let error = #expect(throws: ImageProcessingError.self) { try ImageCodec.encode(image, as: OutputEncoding(format: format)) }
        #expect(error?.code == "encoding_failed")
        #expect(error?.description.contains("not an output format") == true)
    }
}
