import Foundation

/// Bodies for the fakes: they begin like a PNG, so the pipeline's
/// image-data check lets them through, and the fake decoder decides by them.
public enum FakeImages {
    /// A valid 1×1 RGB PNG.
    public static let onePixelPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP438AAAAQBAYDFKhhdAAAAAElFTkSuQmCC")!

    /// A body that looks like a PNG but that `FakeImageDecoder` refuses.
    public static let undecodable = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data("broken".utf8)

    /// A distinct body for `name`: the 1×1 PNG followed by the name.
    public static func body(_ name: String) -> Data {
        onePixelPNG + Data(name.utf8)
    }
}
