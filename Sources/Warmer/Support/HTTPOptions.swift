import ArgumentParser

/// `--http-port` and `--http-host`: where `warmer worker` serves
/// `/metrics`, `/healthz`, `/readyz` and `/v1/queue` (docs/operations.md).
struct HTTPOptions: ParsableArguments {
    @Option(name: .customLong("http-port"), help: ArgumentHelp(
        "Serve /metrics, /healthz, /readyz and /v1/queue on this port (default: no HTTP server).", valueName: "port"))
    var port: Int?

    @Option(name: .customLong("http-host"), help: ArgumentHelp(
        "Address the HTTP server binds to (0.0.0.0 in a container).", valueName: "address"))
    var host: String = "127.0.0.1"

    func validate() throws {
        if let port, !(0...65_535).contains(port) { throw ValidationError("--http-port must be between 0 and 65535") }
        guard !host.isEmpty else { throw ValidationError("--http-host must not be empty") }
    }
}
