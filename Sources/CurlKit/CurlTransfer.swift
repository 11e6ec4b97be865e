import CCurl
import Foundation

/// The state of one running transfer, confined to the curl thread.
///
/// libcurl calls back into it through `Unmanaged` context pointers while the
/// easy handle is attached to the multi handle; `CurlMultiLoop` keeps it
/// alive for exactly that long.
final class CurlTransfer {
    let request: CurlTransferRequest
    let easy: CurlEasyHandle

    private(set) var statusCode = 0
    private(set) var headers: [String: String] = [:]
    private(set) var body = Data()
    private(set) var received: Int64 = 0
    private(set) var expectedLength: Int64?
    /// Set when a callback aborted the transfer for a reason curl cannot name.
    private(set) var abortReason: CurlTransferError?
    private var lastProgressReport: UInt64 = 0
    private var reportedBytes: Int64 = -1

    init(request: CurlTransferRequest, easy: CurlEasyHandle) {
        self.request = request
        self.easy = easy
    }

    var isSuccessfulStatus: Bool { (200..<300).contains(statusCode) }

    /// Handles one header line. A status line starts a new response (redirects
    /// and interim responses each start with one), so earlier headers are dropped.
    /// Returns false to abort the transfer.
    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        let bytes = line.bindMemory(to: UInt8.self)
        guard let header = HTTPHeaderLine(bytes) else { return true }
        switch header {
        case .status(let code):
            headers = [:]
            expectedLength = nil
            statusCode = code
        case .field(let name, let value):
            // A field sent on several lines is one list (RFC 9110 §5.3):
            // `Cache-Control: no-store` must survive a second Cache-Control line.
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
            if name == "content-length", let length = Int64(value), isSuccessfulStatus {
                expectedLength = length
                if length > request.limits.maximumBodySize {
                    abortReason = .bodyTooLarge(limit: request.limits.maximumBodySize)
                    return false
                }
                body.reserveCapacity(Int(length))
            }
        }
        return true
    }

    /// Appends body bytes, enforcing the size limit while streaming (chunked
    /// responses carry no length up front). Returns false to abort the transfer.
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        // Error bodies (404 pages and the like) are not kept.
        guard isSuccessfulStatus else { return true }
        received += Int64(chunk.count)
        if received > request.limits.maximumBodySize {
            abortReason = .bodyTooLarge(limit: request.limits.maximumBodySize)
            return false
        }
        body.append(chunk.bindMemory(to: UInt8.self))
        let now = DispatchTime.now().uptimeNanoseconds
        if now &- lastProgressReport >= request.limits.progressIntervalNanoseconds {
            lastProgressReport = now
            reportProgress()
        }
        return true
    }

    /// Reports the current byte count unless it was already reported.
    func reportProgress() {
        guard received != reportedBytes else { return }
        reportedBytes = received
        request.onProgress(statusCode, received, expectedLength)
    }

    /// Whether the transfer may connect to `address`, for the URL it is on now
    /// (redirects included). A refusal is remembered as the transfer's error.
    func mayConnect(to address: [UInt8]) -> Bool {
        let host = easy.effectiveURL.flatMap { URLComponents(string: $0)?.host }
        guard request.mayConnect(address, host) else {
            abortReason = .addressRefused(bytes: address)
            return false
        }
        return true
    }

    /// The transfer's outcome once libcurl reports it done: a 2xx with its
    /// whole body, or a 304 (the answer to a conditional request), succeed.
    func result(for code: CURLcode) -> Result<CurlTransferResponse, CurlTransferFailure> {
        if let abortReason { return .failure(failure(abortReason)) }
        guard code == CURLE_OK else { return .failure(failure(CurlTransferError(curlCode: code))) }
        guard isSuccessfulStatus || statusCode == 304 else { return .failure(failure(.httpStatus(statusCode))) }
        if let expectedLength, received != expectedLength {
            return .failure(failure(.transport(code: Int(CURLE_PARTIAL_FILE.rawValue), message: "Transferred a partial file")))
        }
        reportProgress()
        return .success(response)
    }

    /// A failure carrying what arrived so far, so a caller can resume a cut
    /// download or honour a `Retry-After` header.
    func failure(_ error: CurlTransferError) -> CurlTransferFailure {
        CurlTransferFailure(error, partialResponse: statusCode == 0 ? nil : response)
    }

    /// The response as received so far.
    private var response: CurlTransferResponse {
        CurlTransferResponse(statusCode: statusCode, headers: headers, effectiveURL: easy.effectiveURL ?? request.url, body: body)
    }
}

extension CurlTransferError {
    /// Names a libcurl failure.
    init(curlCode code: CURLcode) {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .unsupportedScheme
        case CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN:
            // No attempt can succeed: permanent, as `invalid_url`.
            self = .invalidURL(CurlRuntime.describe(code))
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects
        case CURLE_FILESIZE_EXCEEDED:
            self = .bodyTooLarge(limit: nil)
        default:
            self = .transport(code: Int(code.rawValue), message: CurlRuntime.describe(code))
        }
    }
}
