import Foundation

/// The `vips` command, which makes the tests' images.
///
/// Most of its start is loading libraries: libvips loads its modules (AVIF
/// and HEIF, JPEG XL, PDF, ImageMagick, OpenSlide) and the codecs they link
/// at every start, which doubles it (about 60 ms of CPU instead of 30). A
/// command that names none of their formats runs with `VIPSHOME` pointing
/// where there are no modules, so libvips starts without them.
enum VipsCommand {
    /// The file extensions whose loaders and savers are libvips modules.
    static let moduleFormats = ["avif", "heic", "heif", "jxl", "pdf", "svg", "mrxs", "svs"]

    /// A folder with no `lib/vips-modules-*` in it.
    static let noModules = FileManager.default.temporaryDirectory.appendingPathComponent("warmer-vips-without-modules").path

    /// Runs `vips` with `arguments`; fails with its standard error when it exits non-zero.
    static func run(_ arguments: [String]) throws {
        let needsModules = arguments.contains { argument in
            let name = argument.split(separator: "[").first.map { $0.lowercased() } ?? ""
            return moduleFormats.contains { name.hasSuffix(".\($0)") }
        }
        var environment = ProcessInfo.processInfo.environment
        if !needsModules { environment["VIPSHOME"] = noModules }
        try Origin.run("vips", arguments, environment: environment)
    }
}
