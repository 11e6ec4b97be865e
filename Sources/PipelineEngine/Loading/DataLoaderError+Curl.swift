import CurlKit

extension DataLoaderError {
    /// A libcurl transfer's failure in the loader's error vocabulary.
    init(_ error: CurlTransferError) {
        switch error {
        case .invalidURL(let message): self = .invalidURL(message)
        case .unsupportedScheme: self = .unsupportedScheme
        case .httpStatus(let status): self = .httpStatus(status)
        case .bodyTooLarge(let limit): self = .bodyTooLarge(limit: limit)
        case .timedOut: self = .timedOut
        case .tooManyRedirects: self = .tooManyRedirects
        case .cancelled: self = .cancelled
        case .addressRefused(let bytes): self = .addressRefused(IPAddress(bytes: bytes)?.description ?? "\(bytes)")
        case .transport(let code, let message): self = .transport(code: code, message: message)
        }
    }
}
