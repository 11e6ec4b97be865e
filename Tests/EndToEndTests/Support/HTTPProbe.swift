import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport

/// GETs on a worker's HTTP endpoints (`--http-port`), and its `/metrics`
/// parsed by the reference parser of the Prometheus text format.
struct HTTPProbe: Sendable {
    /// An answer: its status and body.
    struct Answer: Sendable, CustomStringConvertible {
        let status: Int
        let body: String
        var description: String { "\(status) \(body)" }

        /// The body as a JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// One sample of `/metrics`.
    struct Sample: Sendable, Decodable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    let port: Int

    /// `GET path`; nil when nothing answers.
    func get(_ path: String) async -> Answer? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.timeoutInterval = 5
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              let http = response as? HTTPURLResponse else { return nil }
        return Answer(status: http.statusCode, body: String(decoding: data, as: UTF8.self))
    }

    /// Waits until the server answers at all (a worker logs `started` just
    /// before its services, the HTTP server among them, begin).
    func waitUntilAnswering() async throws {
        let answering = await eventually { await get("/healthz") != nil }
        guard answering else { throw HarnessError("nothing answers on 127.0.0.1:\(port)") }
    }

    /// `/metrics`, parsed by prometheus_client's parser (scripts/prometheus-samples.py).
    /// - Throws: when the endpoint does not answer 200 or the text does not parse.
    func metrics() async throws -> [Sample] {
        guard let answer = await get("/metrics"), answer.status == 200 else {
            throw HarnessError("/metrics did not answer 200")
        }
        let script = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/prometheus-samples.py")
        let parsed = try await runProcess("/usr/bin/env", ["python3", script.path], stdin: answer.body)
        guard parsed.status == 0 else { throw HarnessError("the Prometheus parser refused /metrics: \(parsed.error)\n\(answer.body)") }
        return try parsed.output.split(separator: "\n").map { try JSONDecoder().decode(Sample.self, from: Data($0.utf8)) }
    }
}

extension [HTTPProbe.Sample] {
    /// The sum of the samples named `name` whose labels include `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
            .map(\.value).reduce(0, +)
    }

    /// Whether a sample named `name` exists.
    func has(_ name: String) -> Bool { contains { $0.name == name } }
}

/// Runs a program to its end, feeding `stdin`, and collects its output.
func runProcess(
    _ path: String, _ arguments: [String], stdin: String = "", environment: [String: String] = [:]
) async throws -> (status: Int32, output: String, error: String) {
    try await offCooperativePool {
        let process = try ChildProcess(
            path, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            standardInput: .pipe, standardOutput: .pipe, standardError: .pipe
        )
        process.standardInput?.write(Data(stdin.utf8))
        try process.standardInput?.close()
        let out = process.standardOutput?.readDataToEndOfFile() ?? Data()
        let err = process.standardError?.readDataToEndOfFile() ?? Data()
        let exit = process.waitUntilExit()
        return (exit.status, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
