import Foundation
import Testing
import WarmerInput

/// Reading URL lists: lines, comments, and which lines are http(s) URLs.
@Suite struct URLListTests {
    @Test(arguments: [
        "http://a.example/x.jpg", "https://cdn.example.com/img/1.webp?w=320&q=80#frag", "HTTPS://Host.Example",
        "http://127.0.0.1:8080/a", "https://user@host.example/a.jpg", "https://[::1]:8443/a.png",
        "https://host.example/a%20b.jpg", "https://bücher.example/ä.jpg", "http://h.example:65535/a", "http://h.example:1/a",
        "http://h.example:00080/a",
    ])
    func acceptsHTTPURLsWithAHost(_ text: String) {
        #expect(URLList.isValid(text))
    }

    @Test(arguments: [
        "ftp://host.example/a.jpg", "http://", "https:///path", "http:/host/a", "host.example/a.jpg", "mailto:a@b.c",
        "file:///etc/passwd", "httpx://host/a", "http://:80/a",
        // What libcurl would refuse as malformed (curl error 3), every attempt:
        "http://127.0.0.1:99999/x.jpg", "http://127.0.0.1:0/x.jpg", "http://127.0.0.1:65536/x.jpg",
        "http://127.0.0.1/a b.jpg", "http://127.0.0.1/a\tb.jpg", "http://h.example/a\u{7F}.jpg",
    ])
    func refusesEverythingElse(_ text: String) {
        #expect(!URLList.isValid(text))
    }

    @Test(arguments: ["http://h.example:99999/a", "http://h.example:0/a", "http://h.example:65535/a", "http://h.example:8/a"])
    func quickAndFullValidationAgreeOnPorts(_ text: String) {
        #expect(URLList.quickVerdict(text) == URLList.fullVerdict(text), "\(text)")
    }

    @Test func quickAndFullValidationAgreeOnPlainURLs() {
        // The quick path must say what URLComponents says, for URLs it judges itself.
        let samples = ["http://a/b", "https://x.y/z?a=1&b=(2)*3;c=$4!", "http://h:99/p#f", "https://h/~u/'q'"]
        for sample in samples {
            let components = URLComponents(string: sample)
            #expect(URLList.isValid(sample) == (components?.host?.isEmpty == false), "\(sample)")
        }
    }

    @Test func readsLinesSkippingBlanksAndCommentsAndNumbersBadOnes() {
        let list = URLList(text: "  https://a.example/1.jpg \r\n\n# a comment\nnot a url\n\thttp://b.example/2.png")
        #expect(list.urls == ["https://a.example/1.jpg", "http://b.example/2.png"])
        #expect(list.invalidLines.map(\.number) == [4])
        #expect(list.invalidLines.map(\.text) == ["not a url"])
    }
}
