import ArgumentParser

/// The pipeline's tunables, shared by `worker` and `warm`.
struct PipelineOptions: SettingFlags {
    @Option(name: Settings.dataCachePolicy.info.argumentName, help: Settings.dataCachePolicy.info.argumentHelp)
    var dataCachePolicy: String?

    @Option(name: Settings.cacheMode.info.argumentName, help: Settings.cacheMode.info.argumentHelp)
    var cacheMode: String?

    @Option(name: Settings.memoryCacheSize.info.argumentName, help: Settings.memoryCacheSize.info.argumentHelp)
    var memoryCacheSize: String?

    @Option(name: Settings.maxPixels.info.argumentName, help: Settings.maxPixels.info.argumentHelp)
    var maxPixels: String?

    @Option(name: Settings.maxOutputPixels.info.argumentName, help: Settings.maxOutputPixels.info.argumentHelp)
    var maxOutputPixels: String?

    @Option(name: Settings.maxOutputSide.info.argumentName, help: Settings.maxOutputSide.info.argumentHelp)
    var maxOutputSide: String?

    @Option(name: Settings.memoryBudget.info.argumentName, help: Settings.memoryBudget.info.argumentHelp)
    var memoryBudget: String?

    @Option(name: Settings.imageThreads.info.argumentName, help: Settings.imageThreads.info.argumentHelp)
    var imageThreads: String?

    @Flag(name: Settings.acceptNonImages.info.argumentName, inversion: .prefixedNo,
          help: Settings.acceptNonImages.info.argumentHelp)
    var acceptNonImages: Bool?

    var givenFlags: GivenFlags {
        GivenFlags()
            .with(Settings.dataCachePolicy, dataCachePolicy)
            .with(Settings.acceptNonImages, acceptNonImages)
            .with(Settings.cacheMode, cacheMode)
            .with(Settings.memoryCacheSize, memoryCacheSize)
            .with(Settings.maxPixels, maxPixels)
            .with(Settings.maxOutputPixels, maxOutputPixels)
            .with(Settings.maxOutputSide, maxOutputSide)
            .with(Settings.memoryBudget, memoryBudget)
            .with(Settings.imageThreads, imageThreads)
    }
}
