/// The memory cache of decoded images, after Nuke's `ImageCache`.
///
/// Least recently used entries go first when the cost limit (bytes of pixel
/// memory) or the count limit is exceeded; entries older than the TTL are
/// misses; an image costing 10% or more of the cost limit is not stored.
/// Only the level a request asked for is stored, never intermediate steps.
public final class ImageCache: Sendable {
    private let storage: MemoryCache<ImageCacheKey, DecodedImage>

    /// The limits the cache was created with.
    public let limits: MemoryCacheLimits

    /// Creates a cache. Default: a cost limit of min(15% of RAM, 768 MiB), no
    /// count limit, no TTL.
    public init(limits: MemoryCacheLimits = .serverDefault) {
        self.limits = limits
        self.storage = MemoryCache(configuration: limits)
    }

    /// The image for `key`, marking it most recently used; `nil` on a miss or an expired entry.
    public func image(for key: ImageCacheKey) -> DecodedImage? {
        storage.value(forKey: key)
    }

    /// Whether an unexpired image for `key` is cached (marks it used).
    public func containsImage(for key: ImageCacheKey) -> Bool {
        image(for: key) != nil
    }

    /// Stores `image`, evicting least recently used entries to stay within limits.
    public func store(_ image: DecodedImage, for key: ImageCacheKey) {
        storage.set(image, forKey: key, cost: image.cost)
    }

    /// Removes the image for `key`.
    public func removeImage(for key: ImageCacheKey) {
        storage.removeValue(forKey: key)
    }

    /// Removes every image.
    public func removeAll() {
        storage.removeAll()
    }

    /// The keys of the cached images.
    public var keys: [ImageCacheKey] { storage.keys }
    /// The total cost (bytes of pixels) of the cached images.
    public var totalCost: Int { storage.totalCost }
    /// The number of cached images.
    public var totalCount: Int { storage.totalCount }
}
