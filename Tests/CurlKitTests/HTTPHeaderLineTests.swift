import Testing
@testable import CurlKit

/// The curl thread parses every header line libcurl hands it from raw bytes.
@Suite("HTTP header lines")
struct HTTPHeaderLineTests {
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\n", HTTPHeaderLine.status(200)),
        ("HTTP/2 304\r\n", .status(304)),
        ("Content-Type: image/jpeg\r\n", .field(name: "content-type", value: "image/jpeg")),
        ("ETag:   \"abc\"  \r\n", .field(name: "etag", value: "\"abc\"")),
        ("X-Empty:\r\n", .field(name: "x-empty", value: "")),
    ])
    func parsesStatusLinesAndFields(_ text: String, _ expected: HTTPHeaderLine) {
        #expect(parse(text) == expected)
    }

    @Test(arguments: ["\r\n", "", "no colon here\r\n", ": no name\r\n", "HTTP/1.1 2x0 Broken\r\n"])
    func ignoresTheBlankLineAndMalformedLines(_ text: String) {
        #expect(parse(text) == nil)
    }

    private func parse(_ text: String) -> HTTPHeaderLine? {
        Array(text.utf8).withUnsafeBufferPointer { HTTPHeaderLine($0) }
    }
}
