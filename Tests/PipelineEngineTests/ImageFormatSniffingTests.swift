import Foundation
import Testing
@testable import PipelineEngine

/// `ImageFormat(sniffing:)`: the format of encoded data by its first bytes,
/// the one check the engine (`not_an_image`) and the server's `Content-Type`
/// share.
@Suite struct ImageFormatSniffingTests {
    /// An ISO base media file's first 12 bytes: a box size, `ftyp`, the major brand.
    private static func isoMedia(brand: String) -> Data {
        Data([0, 0, 0, 0x18]) + Data("ftyp".utf8) + Data(brand.utf8) + Data([0, 0, 0, 0])
    }

    @Test(arguments: ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"])
    func anFtypBoxOfAHEIFBrandIsHEIF(_ brand: String) {
        #expect(ImageFormat(sniffing: Self.isoMedia(brand: brand)) == .heif)
    }

    @Test(arguments: ["isom", "mp42", "qt  ", "M4A "])
    func anFtypBoxOfAnotherBrandIsNoImage(_ brand: String) {
        #expect(ImageFormat(sniffing: Self.isoMedia(brand: brand)) == nil)
    }

    @Test func avifIsNotTakenForHEIF() {
        #expect(ImageFormat(sniffing: Self.isoMedia(brand: "avif")) == .avif)
        #expect(ImageFormat(sniffing: Self.isoMedia(brand: "avis")) == .avif)
    }

    @Test func aTruncatedFtypBoxIsNoImage() {
        #expect(ImageFormat(sniffing: Self.isoMedia(brand: "heic").prefix(10)) == nil)
    }
}
