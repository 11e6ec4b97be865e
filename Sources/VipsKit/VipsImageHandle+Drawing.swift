import CVips

extension VipsImageHandle {
    // Drawing changes the image in place: only on a one-band memory image
    // (`Vips.black(width:height:)`) that no other thread can see yet.

    /// Fills the rectangle at (`left`, `top`), `width` × `height`, with `value`.
    package func fillRectangle(value: Double, left: Int, top: Int, width: Int, height: Int) throws(VipsFailure) {
        let status = warmer_vips_fill_rect(vips.table, pointer, value, Int32(left), Int32(top), Int32(width), Int32(height))
        guard status == 0 else { throw VipsFailure(message: vips.takeError()) }
    }

    /// Fills the disc of `radius` around (`centreX`, `centreY`) with `value`.
    package func fillCircle(value: Double, centreX: Int, centreY: Int, radius: Int) throws(VipsFailure) {
        let status = warmer_vips_fill_circle(vips.table, pointer, value, Int32(centreX), Int32(centreY), Int32(radius))
        guard status == 0 else { throw VipsFailure(message: vips.takeError()) }
    }
}
