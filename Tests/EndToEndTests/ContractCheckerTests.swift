import Foundation
import Testing

/// The run's contract checker (scripts/openapi-check.py --serve), which
/// every `withServe` test's exchanges go through, tells a response off
/// docs/openapi.yaml from one on it.
@Suite struct ContractCheckerTests {
    @Test func aResponseMissingRequiredFieldsIsReportedAndAConformingOneIsNot() async throws {
        let problem = #"{"type":"about:blank","title":"Not Found","status":404,"detail":"no queue"}"#
        let conforming = try Self.exchange(status: 404, contentType: "application/problem+json", body: problem)
        let offContract = try Self.exchange(status: 200, contentType: "application/json", body: #"{"nonsense":1}"#)

        let onlyConforming = try await ServeProcess.contractComplaints(about: Data((conforming + "\n").utf8))
        let both = try await ServeProcess.contractComplaints(about: Data((conforming + "\n" + offContract + "\n").utf8))

        #expect(onlyConforming.isEmpty, "\(onlyConforming)")
        #expect(both.hasPrefix("line 2: GET /v1/queues/default -> 200") && both.contains("'queued' is a required property"), "\(both)")
    }

    private static func exchange(status: Int, contentType: String, body: String) throws -> String {
        let line: [String: Any] = [
            "method": "GET", "path": "/v1/queues/default", "requestBody": NSNull(), "status": status,
            "headers": ["content-type": contentType], "body": body,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self)
    }
}
