import Foundation
import Testing
import TestSupport

/// deploy/ holds what a fleet runs: every file parses, names only flags and
/// settings the worker (and the server, DeployManifestTests+Serve.swift)
/// has, and probes the paths and port it serves. The
/// image itself cannot be built here (no container engine); see
/// deploy/README.md for what is and is not exercised.
@Suite struct DeployManifestTests {
    /// `warmer worker --help`.
    private func workerHelp() async throws -> String {
        let help = try await warmer(["worker", "--help"])
        #expect(help.status == 0, "\(help)")
        return help.standardOutput
    }

    @Test func everyManifestParsesAsYAML() throws {
        let files = try DeployFiles.yamlFiles()
        #expect(files.count >= 6, "\(files.map(DeployFiles.name))")
        for file in files {
            let documents = try DeployFiles.documents(file)
            #expect(!documents.isEmpty, "\(DeployFiles.name(file)) has no document")
            for document in documents {
                let mapping = document as? [String: Any]
                #expect(mapping != nil, "\(DeployFiles.name(file)): a document is not a mapping")
                if DeployFiles.name(file).hasPrefix("kubernetes/") {
                    #expect(mapping?["apiVersion"] is String && mapping?["kind"] is String,
                            "\(DeployFiles.name(file)): a Kubernetes object needs apiVersion and kind")
                }
            }
        }
    }

    @Test func everyWorkerFlagInDeployExistsInTheWorkersHelp() async throws {
        let help = try await workerHelp()
        let known = Set(help.matches(of: try Regex("--[a-z][a-z0-9-]*")).map { String(help[$0.range]) })
        let lines = try DeployFiles.workerCommandLines()
        #expect(Set(lines.map(\.file)) == ["kubernetes", "compose.yaml", "Dockerfile", "systemd"], "\(lines)")
        for (file, arguments) in lines {
            for flag in arguments where flag.hasPrefix("--") {
                let name = String(flag.prefix { $0 != "=" })
                #expect(known.contains(name), "\(file) runs `warmer worker \(name)`, which `warmer worker --help` does not list")
            }
        }
    }

    @Test func everyWarmerVariableInDeployIsADocumentedSetting() async throws {
        let serve = try await warmer(["serve", "--help"])
        #expect(serve.status == 0, "\(serve)")
        let help = try await workerHelp() + serve.standardOutput
        // The settings table, once docs/configuration.md exists; else only --help counts.
        let table = (try? String(contentsOf: DeployFiles.settingsTable, encoding: .utf8)) ?? ""
        let names = try DeployFiles.environmentNames()
        #expect(names.keys.contains("WARMER_REDIS_URL"), "\(names)")
        // The server's files are read too (their tokens are settings only `serve --help` names)
        #expect(names["WARMER_READ_TOKENS"]?.isSuperset(of: ["kubernetes/serve.yaml", "compose.yaml", "systemd/warmer-serve.env"]) == true,
                "\(names["WARMER_READ_TOKENS"] ?? [])")
        for (name, files) in names.sorted(by: { $0.key < $1.key }) {
            #expect(help.contains(name) || table.contains("`\(name)`"),
                    "\(name) (in \(files.sorted())) is neither in `warmer worker --help`, `warmer serve --help` nor in docs/configuration.md's table")
        }
    }

    @Test func theDeploymentProbesTheWorkersHTTPPort() throws {
        let deployment = try DeployFiles.object(kind: "Deployment", name: "warmer-worker")
        let spec = try #require(deployment.value("spec.template.spec") as? [String: Any])
        let container = try #require(spec.objects("containers").first)
        let arguments: [String] = (container.list("command") + container.list("args")).map { DeployFiles.scalar($0) }
        let variables: [(String, String?)] = container.objects("env").compactMap { entry in
            entry.string("name").map { ($0, entry.string("value")) }
        }
        let environment: [String: String?] = Dictionary(variables, uniquingKeysWith: { first, _ in first })

        // The port the worker is told to serve, and the one the container declares…
        let served: String? = DeployFiles.value(of: "--http-port", in: arguments) ?? environment["WARMER_HTTP_PORT"] ?? nil
        let port = try #require(served.flatMap { Int($0) }, "the worker needs --http-port or WARMER_HTTP_PORT: \(arguments)")
        let host: String? = DeployFiles.value(of: "--http-host", in: arguments) ?? environment["WARMER_HTTP_HOST"] ?? nil
        #expect(host == "0.0.0.0", "in a pod the server must listen beyond loopback")
        let declared: [(String, Int)] = container.objects("ports").compactMap { entry in
            entry.string("name").flatMap { name in entry.string("containerPort").flatMap { Int($0) }.map { (name, $0) } }
        }
        let ports: [String: Int] = Dictionary(declared, uniquingKeysWith: { first, _ in first })
        #expect(ports["http"] == port, "container port \(ports) vs --http-port \(port)")
        func resolve(_ value: String?) -> Int? { value.flatMap { Int($0) ?? ports[$0] } }

        // …are the ones both probes use, on the server's paths
        #expect(container.string("livenessProbe.httpGet.path") == "/healthz")
        #expect(container.string("readinessProbe.httpGet.path") == "/readyz")
        #expect(resolve(container.string("livenessProbe.httpGet.port")) == port)
        #expect(resolve(container.string("readinessProbe.httpGet.port")) == port)
        let annotations = deployment.value("spec.template.metadata.annotations") as? [String: Any] ?? [:]
        #expect(annotations["prometheus.io/port"].map(DeployFiles.scalar) == String(port))
        #expect(annotations["prometheus.io/path"].map(DeployFiles.scalar) == "/metrics")

        // The drain fits in the pod's termination grace period
        let grace = try #require(DeployFiles.value(of: "--grace-period", in: arguments).flatMap(Int.init))
        let termination = try #require(spec.string("terminationGracePeriodSeconds").flatMap(Int.init))
        #expect(termination > grace, "terminationGracePeriodSeconds \(termination) must exceed --grace-period \(grace)")

        // Memory follows docs/memory.md's model for the concurrency and budget the pod sets:
        // request >= 88 MiB + 3 MiB per job; limit >= that + the memory budget; image threads fixed
        func mebibytes(_ path: String) -> Int? {
            container.string(path).flatMap { $0.hasSuffix("Mi") ? Int($0.dropLast(2)) : nil }
        }
        func number(_ name: String) -> Int? { (environment[name] ?? nil).flatMap { Int($0) } }
        let concurrency = try #require(number("WARMER_CONCURRENCY"))
        let budget = try #require(number("WARMER_MEMORY_BUDGET"))
        let imageThreads = try #require(number("WARMER_IMAGE_THREADS"))
        let request = try #require(mebibytes("resources.requests.memory"), "memory request in Mi")
        let limit = try #require(mebibytes("resources.limits.memory"), "memory limit in Mi")
        let working = 88 + 3 * concurrency
        #expect(request >= working, "memory request \(request)Mi under 88 + 3 x \(concurrency) = \(working) MiB")
        #expect(limit >= working + budget, "memory limit \(limit)Mi under \(working) + budget \(budget)")
        #expect(imageThreads >= 1, "WARMER_IMAGE_THREADS fixed, not the node's cores + 1")

        // The Redis URL comes from a Secret, the cache from a volume
        let redis = container.objects("env").first { $0.string("name") == "WARMER_REDIS_URL" }
        #expect(redis?.string("valueFrom.secretKeyRef.name") == "warmer-redis", "\(String(describing: redis))")
        let cacheDirectory = environment["WARMER_CACHE_DIR"] ?? nil
        #expect(container.objects("volumeMounts").contains { $0.string("mountPath") == cacheDirectory && $0.string("name") == "cache" })
        #expect(spec.objects("volumes").contains { $0.string("name") == "cache" })
    }

    @Test func kedaReadsTheQueueThroughTheWorkersService() throws {
        let deployment = try DeployFiles.object(kind: "Deployment", name: "warmer-worker")
        let service = try DeployFiles.object(kind: "Service", name: "warmer-worker")
        let scaled = try DeployFiles.object(kind: "ScaledObject", name: "warmer-worker")
        _ = try DeployFiles.object(kind: "PodDisruptionBudget", name: "warmer-worker")
        #expect(scaled.string("spec.scaleTargetRef.name") == "warmer-worker")

        let servicePort = try #require(service.objects("spec.ports").first)
        #expect(servicePort.string("targetPort") == "http")
        let containerPorts = deployment.objects("spec.template.spec.containers").first?.objects("ports") ?? []
        #expect(containerPorts.contains { $0.string("name") == "http" })
        #expect((service.value("spec.selector") as? [String: String]) == (deployment.value("spec.selector.matchLabels") as? [String: String]))

        let apiTriggers = scaled.objects("spec.triggers").filter { $0.string("type") == "metrics-api" }
        #expect(apiTriggers.contains { $0.string("metadata.valueLocation") == "queued" })
        for trigger in apiTriggers {
            let url = try #require(trigger.string("metadata.url").flatMap(URL.init(string:)))
            #expect(url.path == "/v1/queue" && url.host?.hasPrefix("warmer-worker.") == true, "\(url)")
            #expect(url.port.map(String.init) == servicePort.string("port"), "\(url) vs the Service's port")
            #expect(["queued", "active", "delayed", "dead", "intake", "workers"].contains(trigger.string("metadata.valueLocation") ?? ""))
        }
        // Scale-to-zero wakes on the intake list, where every enqueue leaves an entry
        let redis = try #require(scaled.objects("spec.triggers").first { $0.string("type") == "redis" })
        #expect(redis.string("metadata.listName") == "warmer:{default}:intake")
    }

    @Test func composeAndSystemdDrainWithinTheirStopTimeouts() throws {
        let lines = try DeployFiles.workerCommandLines()
        let compose = try #require(try DeployFiles.documents(DeployFiles.folder.appendingPathComponent("compose.yaml")).first as? [String: Any])
        let worker = try #require(compose.value("services.worker") as? [String: Any])
        let composeArguments = try #require(lines.first { $0.file == "compose.yaml" }?.arguments)
        let grace = try #require(DeployFiles.value(of: "--grace-period", in: composeArguments).flatMap(Int.init))
        let stop = try #require(worker.string("stop_grace_period"))
        #expect((Int(stop.dropLast()) ?? 0) > grace && stop.hasSuffix("s"), "stop_grace_period \(stop) vs --grace-period \(grace)")
        #expect(worker.string("deploy.replicas") == "2")
        // The image exposes the port compose and the Dockerfile's CMD serve on
        let dockerfile = try DeployFiles.text("Dockerfile")
        let exposed = dockerfile.split(separator: "\n").first { $0.hasPrefix("EXPOSE ") }.map { String($0.dropFirst(7)) }
        for file in ["compose.yaml", "Dockerfile"] {
            let arguments = try #require(lines.first { $0.file == file }?.arguments)
            #expect(DeployFiles.value(of: "--http-port", in: arguments) == exposed, "\(file): \(arguments)")
        }
        // Redis runs with deploy/redis's settings
        let redisVolumes = (compose.value("services.redis") as? [String: Any])?.list("volumes").map { DeployFiles.scalar($0) } ?? []
        #expect(redisVolumes.contains { $0.hasPrefix("./redis/warmer.conf:") })

        let unit = try DeployFiles.text("systemd/warmer-worker@.service")
        let unitArguments = try #require(lines.first { $0.file == "systemd" }?.arguments)
        let unitGrace = try #require(DeployFiles.value(of: "--grace-period", in: unitArguments).flatMap(Int.init))
        let timeout = try #require(unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") }.flatMap { Int($0.dropFirst(15)) })
        #expect(timeout > unitGrace, "TimeoutStopSec \(timeout) vs --grace-period \(unitGrace)")
        #expect(DeployFiles.value(of: "--http-port", in: unitArguments) == "%i")
    }

    @Test func theProbedPathsAnswerOnARealWorker() async throws {
        // The paths the manifests probe and scrape, served by a real worker
        let deployment = try DeployFiles.object(kind: "Deployment", name: "warmer-worker")
        let container = try #require(deployment.objects("spec.template.spec.containers").first)
        let scaled = try DeployFiles.object(kind: "ScaledObject", name: "warmer-worker")
        let queueURL = scaled.objects("spec.triggers").compactMap { $0.string("metadata.url").flatMap(URL.init(string:)) }.first
        let queuePath = try #require(queueURL?.path)
        let paths = [container.string("livenessProbe.httpGet.path"), container.string("readinessProbe.httpGet.path"),
                     (deployment.value("spec.template.metadata.annotations") as? [String: Any])?["prometheus.io/path"] as? String,
                     queuePath].compactMap { $0 }
        #expect(paths.count == 4)

        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let port = try freeLoopbackPort()
        try await withWorkers(1, queue: queue, cacheDirectory: cache, arguments: ["--http-port", String(port)]) { workers in
            for path in paths {
                let answered = try await eventuallyValue { () async throws -> (status: Int, body: String)? in
                    let response = try await httpGet("http://127.0.0.1:\(port)\(path)")
                    return response.status == 200 ? response : nil
                }
                let response = try #require(answered, "GET \(path) should answer 200:\n\(workers.logs)")
                if path == queuePath {
                    let fields = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
                    #expect(fields?["queued"] is Int, "KEDA reads `queued`: \(response.body)")
                }
            }
        }
    }
}

/// `GET url` with curl (with `headers`, `Name: value` each): the status and the body.
func httpGet(_ url: String, headers: [String] = []) async throws -> (status: Int, body: String) {
    try await offCooperativePool {
        let process = try ChildProcess(
            "/usr/bin/env", ["curl", "--silent", "--max-time", "5", "--write-out", "\n%{http_code}"]
                + headers.flatMap { ["--header", $0] } + [url],
            standardOutput: .pipe
        )
        let text = String(decoding: process.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        let status = Int(text.split(separator: "\n").last ?? "") ?? 0
        return (status, String(text.dropLast(String(status).count + 1)))
    }
}
