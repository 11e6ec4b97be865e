import PipelineEngine
import WarmerInput

extension ProcessingSpec {
    /// Applies the spec to a request: its thumbnail, processors and output
    /// encoding. The request is always a variant, even for an empty spec
    /// (decode and re-encode in the source's format, `URL|reencoded`): the
    /// `processed` destination never stores the original bytes as its result.
    package func apply(to request: inout ImageRequest) {
        request.thumbnail = thumbnail
        request.processors = processors
        request.encoding = encoding
        request.options.insert(.reencodeImage)
    }
}
