import Foundation
import PipelineEngineFakes
@testable import PipelineEngine

/// A pipeline over the in-memory fakes (Tests/PipelineEngineFakes): no
/// network, no disk, the real task graph, queues and caches' logic. A test
/// holds a load, a decode or a step, arranges what it needs, then releases.
struct FakeGraph {
    let loader = FakeDataLoader()
    let cache = InMemoryDataCache()
    let decoder: FakeImageDecoder
    let processor: FakeImageProcessor
    let encoder = FakeImageEncoder()
    let imageCache = ImageCache()
    let pipeline: ImagePipeline

    /// - Parameters:
    ///   - configure: changes to the configuration (policy, concurrency, coalescing).
    ///   - holdingDecodes, holdingSteps: whether decodes or processing steps wait at their gate.
    init(
        holdingDecodes: Bool = false, holdingSteps: Bool = false,
        configure: (inout ImagePipeline.Configuration) -> Void = { _ in }
    ) throws {
        decoder = try FakeImageDecoder(holding: holdingDecodes)
        processor = FakeImageProcessor(holding: holdingSteps)
        var configuration = ImagePipeline.Configuration(dataLoader: loader, dataCache: cache, imageCache: imageCache)
        configuration.imageDecoder = decoder
        configuration.imageProcessor = processor
        configuration.imageEncoder = encoder
        configuration.retryPolicy.maximumAttempts = 1
        configure(&configuration)
        pipeline = ImagePipeline(configuration: configuration)
    }

    /// A URL the fake loader serves (a loopback address no test connects to).
    func image(_ name: String) -> URL {
        let url = URL(string: "http://127.0.0.1:9/fake/\(name).png")!
        loader.serve(url, body: FakeImages.body(name))
        return url
    }

    static let resize1 = ImageProcessor.resize(.init(width: 200, height: nil))
    static let blur2 = ImageProcessor.gaussianBlur(radius: 2)
    static let circle3 = ImageProcessor.circle
}
