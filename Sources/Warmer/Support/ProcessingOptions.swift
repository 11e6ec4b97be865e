import ArgumentParser
import WarmerInput

/// The command-line flags that describe processing, shared by `enqueue`,
/// `warm` and `cache`. They build a `ProcessingSpec`; flags apply in the
/// order thumbnail, resize, blur, rounded, circle. `--processing` takes a
/// whole spec instead, for any other order.
struct ProcessingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Decode to at most N px on the longest side (libvips shrink-on-load).", valueName: "N"))
    var thumbnail: Int?

    @Option(help: ArgumentHelp("Resize to WxH (0 keeps the aspect ratio), optionally ',fill', ',crop', ',upscale'.", valueName: "WxH[,opts]"))
    var resize: String?

    @Option(help: ArgumentHelp("Gaussian blur with this radius.", valueName: "R"))
    var blur: Double?

    @Option(help: ArgumentHelp("Round the corners with this radius in pixels.", valueName: "R"))
    var rounded: Int?

    @Flag(help: "Cut the image to a circle.")
    var circle = false

    @Option(help: "Output format: jpeg, png, webp or avif (default: the source's).")
    var format: String?

    @Option(help: ArgumentHelp("Output quality, 1-100.", valueName: "Q"))
    var quality: Int?

    @Option(help: ArgumentHelp("A whole processing spec, e.g. 'resize=320x0&blur=8&format=webp' (see docs/wire-format.md).", valueName: "spec"))
    var processing: String?

    /// Whether any processing flag was given.
    var isGiven: Bool { isGivenBesidesSpec || processing != nil }

    /// The spec the flags describe.
    func spec() throws -> ProcessingSpec {
        if let processing {
            guard !isGivenBesidesSpec else { throw ValidationError("--processing cannot be combined with other processing flags") }
            return try ProcessingSpec(parsing: processing)
        }
        var steps: [String] = []
        if let thumbnail { steps.append("thumbnail=\(thumbnail)") }
        if let resize { steps.append("resize=\(resize)") }
        if let blur { steps.append("blur=" + ProcessingSpec.decimalText(blur)) }
        if let rounded { steps.append("rounded=\(rounded)") }
        if circle { steps.append("circle") }
        if let format { steps.append("format=\(format)") }
        if let quality { steps.append("quality=\(quality)") }
        return try ProcessingSpec(parsing: steps.joined(separator: "&"))
    }

    private var isGivenBesidesSpec: Bool {
        thumbnail != nil || resize != nil || blur != nil || rounded != nil || circle || format != nil || quality != nil
    }

    func validate() throws {
        do {
            _ = try spec()
        } catch let error as ProcessingSpecError {
            throw ValidationError(error.description)
        }
    }
}
