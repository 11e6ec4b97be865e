import Foundation

extension ImagePipeline {
    /// Direct access to the pipeline's cache layers, by request, after
    /// Nuke's `ImagePipeline.Cache`: the memory cache of decoded images, the
    /// disk cache's original data and its encoded processed images.
    public struct Cache: Sendable {
        /// The disk cache, if the pipeline has one.
        public let dataCache: (any DataCaching)?
        /// The memory cache, if the pipeline has one.
        public let imageCache: ImageCache?

        // MARK: Keys

        /// The memory cache key of the image `request` produces.
        public func makeImageCacheKey(for request: ImageRequest) -> ImageCacheKey { request.imageCacheKey }

        /// The disk cache key of what `request` stores: the original data's
        /// key for a plain request, the encoded image's for a processed one.
        public func makeDataCacheKey(for request: ImageRequest) -> String {
            request.processedDataCacheKey // the URL alone for a plain request
        }

        // MARK: Memory

        /// The decoded image of `request` in memory.
        public func cachedImage(for request: ImageRequest) -> DecodedImage? {
            imageCache?.image(for: request.imageCacheKey)
        }

        /// Whether the decoded image of `request` is in memory.
        public func containsCachedImage(for request: ImageRequest) -> Bool {
            cachedImage(for: request) != nil
        }

        /// Stores a decoded image for `request` in memory.
        public func storeCachedImage(_ image: DecodedImage, for request: ImageRequest) {
            imageCache?.store(image, for: request.imageCacheKey)
        }

        /// Removes the decoded image of `request` from memory.
        public func removeCachedImage(for request: ImageRequest) {
            imageCache?.removeImage(for: request.imageCacheKey)
        }

        // MARK: Disk

        /// The data `request` stores on disk (see `makeDataCacheKey`).
        public func cachedData(for request: ImageRequest) -> Data? {
            dataCache?.cachedData(for: makeDataCacheKey(for: request))
        }

        /// Whether the data `request` stores is on disk.
        public func containsData(for request: ImageRequest) -> Bool {
            dataCache?.containsData(for: makeDataCacheKey(for: request)) ?? false
        }

        /// Stores data for `request` on disk (visible to reads at once, written shortly after).
        public func storeCachedData(_ data: Data, for request: ImageRequest) {
            dataCache?.storeData(data, for: makeDataCacheKey(for: request))
        }

        /// Removes the data of `request` from disk.
        public func removeCachedData(for request: ImageRequest) {
            dataCache?.removeData(for: makeDataCacheKey(for: request))
        }

        /// The file holding the data `request` stores on disk.
        public func cacheURL(for request: ImageRequest) -> URL? {
            dataCache?.url(for: makeDataCacheKey(for: request))
        }

        // MARK: All layers

        /// Removes everything `request` has in memory and on disk (original
        /// data and encoded image).
        public func removeAll(for request: ImageRequest) {
            removeCachedImage(for: request)
            dataCache?.removeData(for: request.dataCacheKey)
            dataCache?.removeData(for: request.processedDataCacheKey)
        }

        /// Empties every layer.
        public func removeAll() {
            imageCache?.removeAll()
            dataCache?.removeAll()
        }
    }
}
