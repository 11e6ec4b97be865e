/// The key of a shared image or encoding task: what is produced, and the
/// options that decide which caches it may use.
struct ImageLoadKey: Hashable, Sendable {
    let image: ImageCacheKey
    let encoding: OutputEncoding?
    let options: ImageRequest.Options

    init(_ request: ImageRequest) {
        image = ImageCacheKey(request)
        encoding = request.encoding
        options = request.options
    }
}
