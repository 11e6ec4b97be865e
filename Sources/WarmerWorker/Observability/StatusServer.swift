import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import WarmerSupport

/// The worker's HTTP endpoints for a platform (`warmer worker --http-port`),
/// served by Hummingbird as a service of the worker's group:
///
/// - `GET /metrics`: every metric in Prometheus text format (the queue's
///   depth as `QueueSampler` last read it);
/// - `GET /healthz`: 200 while the worker's loops turn (liveness);
/// - `GET /readyz`: 200 when Redis answers, the cache folder takes writes
///   and the worker is not draining, else 503 with a JSON reason (readiness);
/// - `GET /v1/queue`: the queue's depth by state, workers alive and
///   whether it is paused, as JSON (for KEDA's metrics-api scaler).
///
/// The server is shut down after the claimer in the group, so probes keep
/// answering (`/readyz`: 503, draining) while running jobs finish.
enum StatusServer {
    /// The service serving the endpoints on `host:port`.
    static func make(
        host: String, port: Int, registry: PrometheusCollectorRegistry, sampler: QueueSampler, readiness: Readiness,
        state: WorkerState, allowances: LoopAllowances, logger: Logger
    ) -> some Service {
        let router = Router()
        router.get("metrics") { _, _ in
            var buffer = ByteBuffer()
            buffer.writeBytes(registry.emitToBuffer())
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: buffer))
        }
        router.get("healthz") { _, _ in
            let ages = state.loopAges()
            var loops: [String: Double] = [:]
            for (loop, age) in ages {
                loops[loop.rawValue] = age.seconds
            }
            let stuck = allowances.stuckLoops(in: state)
            let health = Health(ok: stuck.isEmpty, stuckLoops: stuck, loopAgesSeconds: loops)
            return try json(health, status: stuck.isEmpty ? .ok : .serviceUnavailable)
        }
        router.get("readyz") { _, _ in
            let report = await readiness.report()
            return try json(report, status: report.ready ? .ok : .serviceUnavailable)
        }
        router.get("v1/queue") { _, _ in
            guard let last = sampler.last else {
                return try json(["error": "the queue has not been read yet"], status: .serviceUnavailable)
            }
            return try json(last.sample, status: .ok)
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "warmer"),
            logger: logger
        )
    }

    /// `/healthz`'s body.
    private struct Health: Encodable {
        let ok: Bool
        let stuckLoops: [String]
        let loopAgesSeconds: [String: Double]
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var body = try encoder.encode(value)
        body.append(0x0A)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
