import Scheduler
import Testing
import WarmerInput

/// The intake document's rules (docs/wire-format.md, "Producing"), with the
/// dead-letter messages of the Lua expansion.
@Suite struct IntakeDocumentTests {
    @Test func readsEveryField() throws {
        let document = try IntakeDocument(parsing: #"""
            {"v":1,"batch":"b-1.x_y","urls":["https://a.example/1.jpg","https://a.example/2.jpg"],"priority":"veryHigh",
             "group":"tenant-a","destination":"processed","processing":"thumbnail=64","total":3e0,"timeout":30.0}
            """#)
        #expect(document.urls == ["https://a.example/1.jpg", "https://a.example/2.jpg"])
        #expect(document.batch == "b-1.x_y" && document.priority == "veryHigh" && document.destination == "processed")
        #expect(document.processing == "thumbnail=64" && document.total == 3 && document.timeout == 30)
        #expect(document.group == "tenant-a")
    }

    @Test func optionalFieldsMayBeLeftOut() throws {
        let document = try IntakeDocument(parsing: #"{"v":1,"urls":["a"]}"#)
        #expect(document.batch == nil && document.priority == nil && document.total == nil && document.timeout == nil)
    }

    @Test(arguments: [
        ("{oops", "malformed_document", "not JSON: Expected object key string but found invalid token at character 2"),
        (#"{"v":1,"urls":["a"],"total":Infinity}"#, "malformed_document",
         "not JSON: Expected value but found invalid token at character 29"),
        ("[1,2]", "invalid_document", #"unsupported or missing version "v" (expected the number 1)"#),
        (#"{"v":"1","urls":["a"]}"#, "invalid_document", #"unsupported or missing version "v" (expected the number 1)"#),
        ("42", "invalid_document", "the document is not a JSON object"),
        (#"{"v":1,"urls":{}}"#, "invalid_document", #""urls" must be a non-empty array of strings"#),
        (#"{"v":1,"urls":["a",7]}"#, "invalid_document", "urls[1] is not a URL string"),
        (#"{"v":1,"urls":["a"],"batch":null}"#, "invalid_document", #""batch" must be 1-128 characters from letters, digits, . _ -"#),
        (#"{"v":1,"urls":["a"],"priority":"urgent"}"#, "invalid_document", #"unknown "priority""#),
        (#"{"v":1,"urls":["a"],"group":"a b"}"#, "invalid_document", #""group" must be 1-128 characters from letters, digits, . _ -"#),
        (#"{"v":1,"urls":["a"],"group":""}"#, "invalid_document", #""group" must be 1-128 characters from letters, digits, . _ -"#),
        (#"{"v":1,"urls":["a"],"destination":"cdn"}"#, "invalid_document", #""destination" must be "disk" or "processed""#),
        (#"{"v":1,"urls":["a"],"processing":5}"#, "invalid_document", #""processing" must be a string"#),
        (#"{"v":1,"urls":["a"],"processing":"thumbnail=64"}"#, "invalid_document",
         #""processing" is only for "destination": "processed" (a disk job is never decoded)"#),
        (#"{"v":1,"urls":["a"],"destination":"disk","processing":""}"#, "invalid_document",
         #""processing" is only for "destination": "processed" (a disk job is never decoded)"#),
        (#"{"v":1,"urls":["a","b"],"total":1}"#, "invalid_document",
         #""total" must be an integer from the number of URLs to 9007199254740991"#),
        (#"{"v":1,"urls":["a"],"total":9007199254740992}"#, "invalid_document",
         #""total" must be an integer from the number of URLs to 9007199254740991"#),
        (#"{"v":1,"urls":["a"],"timeout":1.5}"#, "invalid_document",
         #""timeout" must be an integer number of seconds from 1 to 86400"#),
    ])
    func refusesWithTheDeadLetterOfTheExpansion(_ text: String, _ code: String, _ message: String) {
        #expect {
            try IntakeDocument(parsing: text)
        } throws: { error in
            let error = error as? IntakeDocumentError
            return error?.code == code && error?.message == message
        }
    }

    @Test func takesAtMostTenThousandURLs() throws {
        let urls = Array(repeating: #""https://a.example/x.jpg""#, count: 10_000)
        #expect(try IntakeDocument(parsing: #"{"v":1,"urls":[\#(urls.joined(separator: ","))]}"#).urls.count == 10_000)
        #expect(throws: IntakeDocumentError.invalid("more than 10000 URLs; split the batch")) {
            try IntakeDocument(parsing: #"{"v":1,"urls":[\#((urls + ["1"]).joined(separator: ","))]}"#)
        }
    }

    @Test func itsBoundsAreTheQueues() {
        // WarmerInput does not depend on Scheduler (the fuzzers build without it): the same values, twice.
        #expect(IntakeDocument.priorities == Set(JobPriority.allCases.map(\.rawValue)))
        #expect(IntakeDocument.maxTimeout == JobQueue.timeoutRange.upperBound)
        #expect(IntakeDocument.maxBatchLength == 128 && !JobQueue.isValidBatchID(String(repeating: "b", count: 129)))
    }
}
