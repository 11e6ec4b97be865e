import PipelineEngine

/// The pipeline's tunables, read by `worker` and `warm`.
extension Settings {
    static let pipeline: [any AnySetting] = [
        dataCachePolicy, cacheMode, memoryCacheSize, maxPixels, maxOutputPixels, maxOutputSide, memoryBudget, imageThreads,
        acceptNonImages,
    ]

    static let acceptNonImages = Setting<Bool>(
        "accept-non-images", kind: .switch, default: false, defaultText: "off", example: "false", valueName: nil,
        commands: SettingCommand.downloaders,
        help: "Store downloads that are not images (JPEG, PNG, GIF, WebP, AVIF, HEIF) instead of failing them as not_an_image: for warming other kinds of files.",
        convert: SettingConversion.onOff)

    /// Only the two policies under which both destinations keep their
    /// promise: a disk job stores the original bytes, a processed job its
    /// encoded image. (`storeOriginalData` would leave processed jobs
    /// without their image; `storeEncodedImages` would leave disk jobs with
    /// nothing, a data-only load never being encoded.)
    static let dataCachePolicy = Setting<DataCachePolicy>(
        "data-cache-policy", kind: .text, default: .automatic, example: "automatic", valueName: "policy",
        commands: SettingCommand.downloaders,
        help: "What the disk cache keeps: automatic (what each job asks for: the original for disk jobs, the encoded result for processed ones) or storeAll (also the original of processed jobs, so that another variant of the same URL needs no download).",
        convert: { content in
            guard case .string(let value) = content, let policy = DataCachePolicy(rawValue: value) else {
                return .failure(SettingProblem(reason: "is not one of automatic, storeAll"))
            }
            switch policy {
            case .automatic, .storeAll:
                return .success(policy)
            case .storeOriginalData:
                return .failure(SettingProblem(reason: "would leave processed jobs without their processed image: use automatic, or storeAll to keep originals as well"))
            case .storeEncodedImages:
                return .failure(SettingProblem(reason: "would leave disk jobs with nothing stored (they are never decoded): use automatic or storeAll"))
            }
        })

    static let cacheMode = Setting<DataCacheMode>(
        "cache-mode", kind: .text, default: .aggressive, example: "http", valueName: "mode",
        commands: SettingCommand.downloaders,
        help: "aggressive: keep every response for ever, ignoring HTTP caching headers (immutable URLs). http: follow Cache-Control, Expires, ETag and Last-Modified as a shared HTTP cache: fresh entries are served without a request, stale ones revalidated (304).",
        convert: SettingConversion.choice(DataCacheMode.self))

    static let memoryCacheSize = Setting<Int>(
        "memory-cache-size", kind: .wholeNumber, default: 16, example: "16", valueName: "mib",
        commands: SettingCommand.downloaders,
        help: "Memory cache of decoded images, in MiB (0 disables it). A warmer's results live on disk; this only lets jobs share processed images.",
        convert: SettingConversion.wholeNumber(0...Int.max >> 20))

    static let maxPixels = Setting<Int>(
        "max-pixels", kind: .wholeNumber, default: 100, example: "100", valueName: "mpx", commands: SettingCommand.downloaders,
        help: "Largest image accepted, in megapixels, checked from the header before decoding.",
        convert: SettingConversion.wholeNumber(1...1_000_000))

    static let maxOutputPixels = Setting<Int>(
        "max-output-pixels", kind: .wholeNumber, default: ProcessingLimits.default.maxOutputPixelCount / 1_000_000,
        example: "40", valueName: "mpx", commands: SettingCommand.downloaders,
        help: "Largest image a processing step may produce, in megapixels.",
        convert: SettingConversion.wholeNumber(1...1_000_000))

    static let maxOutputSide = Setting<Int>(
        "max-output-side", kind: .wholeNumber, default: ProcessingLimits.default.maxOutputSide, example: "10000",
        valueName: "px", commands: SettingCommand.downloaders,
        help: "Largest width or height a processing step may produce, in pixels.",
        convert: SettingConversion.wholeNumber(1...100_000))

    static let memoryBudget = Setting<Int>(
        "memory-budget", kind: .wholeNumber, default: 1024, example: "1024", valueName: "mib",
        commands: SettingCommand.downloaders,
        help: "Decoded image memory in flight, in MiB: larger images wait for room; one larger than this fails.",
        convert: SettingConversion.wholeNumber(16...Int.max >> 20))

    static let imageThreads = Setting<Int?>(
        "image-threads", kind: .wholeNumber, default: nil, defaultText: "one per core, plus one", example: "4",
        valueName: "n", commands: SettingCommand.downloaders,
        help: "Concurrent libvips operations per stage (decode, process, encode).",
        convert: SettingConversion.optional(SettingConversion.wholeNumber(1...1024)))
}
