import Foundation

/// The start of a download that was cut off, kept to resume it with
/// `Range: bytes=N-` and `If-Range: <validator>`.
///
/// Kept under Nuke's rules: only a 200 or 206 response whose origin
/// supports ranges (`Accept-Ranges: bytes`, or the 206 itself), that has a
/// strong validator (a strong ETag, else Last-Modified) and that stopped
/// short of its length. The pipeline stores it in the disk cache's folder
/// (`<hash>.partial`, see docs/cache-layout.md), so a retry on another
/// worker resumes where this one stopped.
struct PartialDownload: Sendable, Equatable {
    /// The URL downloaded.
    let url: String
    /// The validator the origin must still have for the bytes to be reused.
    let validator: String
    /// The length of the whole body, when known.
    let totalLength: Int64?
    /// The bytes received so far, from the start of the body.
    let data: Data

    /// What a failed attempt left, if worth resuming.
    ///
    /// - Parameters:
    ///   - response: the failed attempt's response, as far as it arrived.
    ///   - previous: the partial download that attempt resumed, if any; a
    ///     206 continuing it extends it.
    init?(failed response: DataLoader.Response, resuming previous: PartialDownload?, url: String) {
        guard !response.data.isEmpty else { return nil }
        switch response.statusCode {
        case 200:
            guard response.headers["accept-ranges"]?.lowercased().contains("bytes") == true,
                  let validator = HTTPCacheMetadata.ifRangeValidator(headers: response.headers) else { return nil }
            self.init(url: url, validator: validator,
                      totalLength: response.headers["content-length"].flatMap { Int64($0) }, data: response.data)
        case 206:
            guard let previous, let range = ContentRange(response.headers["content-range"]),
                  range.start == Int64(previous.data.count) else { return nil }
            self.init(url: url, validator: previous.validator, totalLength: range.total ?? previous.totalLength,
                      data: previous.data + response.data)
        default:
            return nil
        }
        if let totalLength, Int64(data.count) >= totalLength { return nil }
    }

    init(url: String, validator: String, totalLength: Int64?, data: Data) {
        self.url = url
        self.validator = validator
        self.totalLength = totalLength
        self.data = data
    }

    /// The headers that ask the origin for the rest, if it is unchanged.
    var requestHeaders: [String: String] {
        ["Range": "bytes=\(data.count)-", "If-Range": validator]
    }

    /// The whole body, when `response` is the 206 that continues these bytes;
    /// `nil` when it starts elsewhere (the caller then starts over).
    func completed(by response: DataLoader.Response) -> Data? {
        guard response.statusCode == 206, let range = ContentRange(response.headers["content-range"]),
              range.start == Int64(data.count) else { return nil }
        return data + response.data
    }

    // MARK: On disk

    /// The file's first line: a JSON header; the bytes follow it.
    private struct Header: Codable {
        var v = 1
        let url: String
        let validator: String
        let total: Int64?
    }

    /// One line of JSON (`{"total":N,"url":"…","v":1,"validator":"…"}`), a newline, then the bytes.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = (try? encoder.encode(Header(url: url, validator: validator, total: totalLength))) ?? Data()
        return header + Data([UInt8(ascii: "\n")]) + data
    }

    /// Reads a file written by `encoded()`; `nil` when malformed, of
    /// another version, or for another URL (a hash collision, in theory).
    static func decode(_ file: Data, url: String) -> PartialDownload? {
        guard let newline = file.firstIndex(of: UInt8(ascii: "\n")),
              let header = try? JSONDecoder().decode(Header.self, from: file[file.startIndex..<newline]),
              header.v == 1, header.url == url else { return nil }
        let data = file[(newline + 1)...]
        guard !data.isEmpty else { return nil }
        return PartialDownload(url: url, validator: header.validator, totalLength: header.total, data: Data(data))
    }
}
