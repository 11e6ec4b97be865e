import PipelineEngine
import WarmerInput

extension ProcessingSpec {
    /// Applies the spec to a request: its thumbnail, processors and output encoding.
    func apply(to request: inout ImageRequest) {
        request.thumbnail = thumbnail
        request.processors = processors
        request.encoding = encoding
    }
}
