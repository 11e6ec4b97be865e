import Hummingbird
import RedisKit

/// The routes about the server itself: its contract (`/openapi.yaml`, the
/// very bytes of docs/openapi.yaml, compiled in) and its probes
/// (`/healthz`: the process answers; `/readyz`: Redis answers too).
struct ServerRoutes {
    /// A client of its own for the readiness probe, with a short timeout,
    /// so that a probe never waits behind the API's commands.
    let probeClient: RedisClient

    private struct Health: Encodable {
        let ok: Bool
        var reason: String?
    }

    func add(to router: Router<ServerContext>) {
        router.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(string: EmbeddedText.openapi_yaml)))
        }
        router.get("healthz") { _, _ in
            try APIResponse.json(Health(ok: true))
        }
        router.get("readyz") { _, context in
            do {
                _ = try await probeClient.send(["PING"])
                return try APIResponse.json(Health(ok: true))
            } catch {
                // The probe is public: where Redis is, and why it fails, go to the log only.
                context.logger.warning("readiness: Redis does not answer", metadata: ["error": "\(error)"])
                return try APIResponse.json(Health(ok: false, reason: "Redis does not answer"), status: .serviceUnavailable)
            }
        }
    }
}
