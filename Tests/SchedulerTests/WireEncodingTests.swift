import Foundation
import Testing
@testable import Scheduler

/// A batch's status and a job's record encode themselves as docs/wire-format.md
/// and docs/http-api.md show them: each epoch-millisecond time with its ISO
/// 8601 UTC twin (`…AtUTC`) beside it, a field the hash lacks left out.
@Suite struct WireEncodingTests {
    private func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func aBatchStatusCarriesEachTimeWithItsUTCTwin() throws {
        let status = try #require(BatchStatus(fields: [
            "id": "b1", "total": "3", "completed": "2", "cancelled": "1", "createdAt": "1795613399870",
            "finishedAt": "1795613400450", "cancelledAt": "1795613400120", "priority": "high", "destination": "disk",
        ]))
        #expect(try json(status) == #"{"cancelled":1,"cancelledAt":1795613400120,"cancelledAtUTC":"2026-11-25T13:30:00.120Z","#
            + #""completed":2,"createdAt":1795613399870,"createdAtUTC":"2026-11-25T13:29:59.870Z","dead":0,"destination":"disk","#
            + #""failed":0,"finishedAt":1795613400450,"finishedAtUTC":"2026-11-25T13:30:00.450Z","id":"b1","isFinished":true,"#
            + #""pending":0,"priority":"high","recent":0,"total":3}"#)
    }

    @Test func aBatchStatusLeavesOutTimesItDoesNotHold() throws {
        let status = try #require(BatchStatus(fields: ["id": "b2", "total": "1", "createdAt": "-5"]))
        #expect(try json(status) == #"{"cancelled":0,"completed":0,"createdAt":-5,"dead":0,"failed":0,"id":"b2","#
            + #""isFinished":false,"pending":1,"recent":0,"total":1}"#)
    }

    @Test func aJobRecordCarriesEachTimeWithItsUTCTwin() throws {
        let record = try #require(JobRecord(id: "4817", fields: [
            "state": "completed", "url": "https://u:secret@img.example/a.jpg", "b:x": "1", "attempts": "1",
            "worker": "web-1", "enqueuedAt": "1795613399870", "claimedAt": "1795613400120", "finishedAt": "0",
        ]))
        #expect(try json(record) == #"{"attempt":1,"batches":["x"],"claimedAt":1795613400120,"#
            + #""claimedAtUTC":"2026-11-25T13:30:00.120Z","enqueuedAt":1795613399870,"enqueuedAtUTC":"2026-11-25T13:29:59.870Z","#
            + #""finishedAt":0,"finishedAtUTC":"1970-01-01T00:00:00.000Z","id":"4817","state":"completed","#
            + #""url":"https://u:***@img.example/a.jpg","worker":"web-1"}"#)
    }

    @Test func aJobRecordLeavesOutTimesItDoesNotHold() throws {
        let record = try #require(JobRecord(id: "7", fields: ["state": "queued"]))
        #expect(try json(record) == #"{"attempt":0,"batches":[],"id":"7","state":"queued"}"#)
    }
}
