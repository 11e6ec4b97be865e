/// Which data an `ImagePipeline` writes to its disk cache, with Nuke's four cases.
///
/// | policy | original data is written when | encoded processed image is written when |
/// |---|---|---|
/// | `automatic` | the request is not a variant | the request is a variant |
/// | `storeOriginalData` | always | never |
/// | `storeEncodedImages` | never (a plain request stores its re-encoded image under the plain key) | always |
/// | `storeAll` | always | the request is a variant |
///
/// A variant (`ImageRequest.isVariant`) has a thumbnail, a processor, an
/// output encoding or `reencodeImage`; Nuke's table reads "processors" there.
///
/// A data-only load (`loadData`, `prefetchData`) never decodes or encodes,
/// so under `automatic` with processors, or under `storeEncodedImages`, it
/// stores nothing. A request with `disableDiskCacheWrites` stores nothing.
public enum DataCachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Store what the request asked for: the original for a plain request,
    /// the encoded result for a variant.
    case automatic
    /// Store only original data (Nuke's default).
    case storeOriginalData
    /// Store only encoded images, also for plain requests.
    case storeEncodedImages
    /// Store original data, and the encoded result of processed requests.
    case storeAll

    /// Whether loading `request` writes its original data.
    func storesOriginalData(for request: ImageRequest) -> Bool {
        guard request.writesDiskCache else { return false }
        switch self {
        case .automatic: return !request.isVariant
        case .storeOriginalData, .storeAll: return true
        case .storeEncodedImages: return false
        }
    }

    /// Whether loading `request` as an image encodes and writes the result.
    func storesEncodedImage(for request: ImageRequest) -> Bool {
        guard request.writesDiskCache else { return false }
        switch self {
        case .automatic, .storeAll: return request.isVariant
        case .storeOriginalData: return false
        case .storeEncodedImages: return true
        }
    }

    /// Whether an encoded image of `request` may be on disk, worth looking for.
    func mayHaveEncodedImage(for request: ImageRequest) -> Bool {
        switch self {
        case .automatic, .storeAll: return request.isVariant
        case .storeOriginalData: return false
        case .storeEncodedImages: return true
        }
    }
}
