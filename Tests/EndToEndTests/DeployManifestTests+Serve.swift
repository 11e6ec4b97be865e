import Foundation
import Testing
import TestSupport
@testable import Warmer

/// deploy/'s `warmer serve` (the HTTP API): its flags and variables are the
/// server's, its tokens come from Secrets and files (never flags), its
/// probes hit the server's paths and port, every supervisor gives it the
/// same stop timeout, and a real server started as the Deployment starts it
/// answers the probes.
extension DeployManifestTests {
    /// `warmer serve --help`.
    private func serveHelp() async throws -> String {
        let help = try await warmer(["serve", "--help"])
        #expect(help.status == 0, "\(help)")
        return help.standardOutput
    }

    @Test func everyServeFlagInDeployExistsInServesHelp() async throws {
        let help = try await serveHelp()
        let known = Set(help.matches(of: try Regex("--[a-z][a-z0-9-]*")).map { String(help[$0.range]) })
        let lines = try DeployFiles.serveCommandLines()
        #expect(Set(lines.map(\.file)) == ["kubernetes", "compose.yaml", "systemd"], "\(lines)")
        for (file, arguments) in lines {
            for flag in arguments where flag.hasPrefix("--") {
                let name = String(flag.prefix { $0 != "=" })
                #expect(known.contains(name), "\(file) runs `warmer serve \(name)`, which `warmer serve --help` does not list")
                // Tokens never go on a command line (a process listing shows it)
                #expect(!name.contains("token"), "\(file) gives `warmer serve` a token flag: \(arguments)")
            }
        }
    }

    @Test func everyVariableGivenToServeIsASettingServeReads() throws {
        let serveReads = Set(Settings.used(by: .serve).map(\.info.environmentName))
        #expect(serveReads.isSuperset(of: ["WARMER_READ_TOKENS", "WARMER_ADMIN_TOKENS"]))
        let container = try serveContainer()
        let compose = try #require(try DeployFiles.composeServices()["api"])
        let given: [(file: String, names: [String])] = [
            ("kubernetes/serve.yaml", container.objects("env").compactMap { $0.string("name") }),
            ("compose.yaml", Array((compose["environment"] as? [String: Any] ?? [:]).keys)),
            ("systemd/warmer-serve.service", Array(try DeployFiles.environmentAssignments("systemd/warmer-serve.service").keys)),
            ("systemd/warmer-serve.env", Array(try DeployFiles.environmentAssignments("systemd/warmer-serve.env").keys)),
        ]
        for (file, names) in given {
            #expect(names.contains("WARMER_READ_TOKENS") || file.hasSuffix(".service"), "\(file) gives no read tokens")
            for name in names {
                #expect(serveReads.contains(name), "\(file) gives `warmer serve` \(name), which it does not read")
            }
        }
        // In the pod, tokens come from the Secret whose example lists its keys
        let secret = try DeployFiles.object(kind: "Secret", name: "warmer-serve")
        for variable in ["WARMER_READ_TOKENS", "WARMER_ADMIN_TOKENS"] {
            let entry = try #require(container.objects("env").first { $0.string("name") == variable })
            #expect(entry.string("value") == nil, "\(variable) must come from a Secret, not a literal")
            #expect(entry.string("valueFrom.secretKeyRef.name") == "warmer-serve")
            let key = try #require(entry.string("valueFrom.secretKeyRef.key"))
            #expect(secret.string("stringData.\(key)") != nil, "secret.example.yaml's warmer-serve has no key \(key)")
        }
    }

    @Test func theServeDeploymentProbesItsHTTPPortAndReadsTheCache() throws {
        let deployment = try DeployFiles.object(kind: "Deployment", name: "warmer-serve")
        let service = try DeployFiles.object(kind: "Service", name: "warmer-serve")
        let worker = try DeployFiles.object(kind: "Deployment", name: "warmer-worker")
        let container = try serveContainer()
        let arguments = try #require(try DeployFiles.serveCommandLines().first { $0.file == "kubernetes" }?.arguments)
        #expect(deployment.string("spec.replicas") == "2")

        // The port it is told to serve is the container's, which both probes use on the server's paths
        let port = try #require(DeployFiles.value(of: "--http-port", in: arguments).flatMap(Int.init), "\(arguments)")
        #expect(DeployFiles.value(of: "--http-host", in: arguments) == "0.0.0.0", "in a pod the server must listen beyond loopback")
        let ports = container.objects("ports")
        #expect(ports.contains { $0.string("name") == "http" && $0.string("containerPort") == String(port) }, "\(ports)")
        func resolve(_ value: String?) -> Int? {
            guard let value else { return nil }
            return Int(value) ?? ports.first { $0.string("name") == value }?.string("containerPort").flatMap(Int.init)
        }
        #expect(container.string("livenessProbe.httpGet.path") == "/healthz")
        #expect(container.string("readinessProbe.httpGet.path") == "/readyz")
        #expect(resolve(container.string("livenessProbe.httpGet.port")) == port)
        #expect(resolve(container.string("readinessProbe.httpGet.port")) == port)

        // The ClusterIP Service selects these pods (and no worker) on that port
        let selector = service.value("spec.selector") as? [String: String]
        #expect(selector == (deployment.value("spec.selector.matchLabels") as? [String: String]))
        #expect(selector != (worker.value("spec.selector.matchLabels") as? [String: String]))
        #expect(service.string("spec.type") ?? "ClusterIP" == "ClusterIP")
        #expect(service.objects("spec.ports").first?.string("targetPort") == "http")

        // The worker's security context, the Redis URL from its Secret, modest resources
        let spec = try #require(deployment.value("spec.template.spec") as? [String: Any])
        let workerContainer = try #require(worker.objects("spec.template.spec.containers").first)
        func same(_ a: Any?, _ b: Any?) -> Bool { a != nil && canonical(a) == canonical(b) }
        #expect(same(spec["securityContext"], worker.value("spec.template.spec.securityContext")), "the pod's securityContext")
        #expect(same(container["securityContext"], workerContainer["securityContext"]), "the container's securityContext")
        let redis = container.objects("env").first { $0.string("name") == "WARMER_REDIS_URL" }
        #expect(redis?.string("valueFrom.secretKeyRef.name") == "warmer-redis", "\(String(describing: redis))")
        #expect(container.string("resources.requests.memory") != nil && container.string("resources.limits.memory") != nil)

        // The workers' cache claim, at WARMER_CACHE_DIR, read-only (the choice deploy/README.md explains)
        let cacheDirectory = container.objects("env").first { $0.string("name") == "WARMER_CACHE_DIR" }?.string("value")
        let mount = try #require(container.objects("volumeMounts").first { $0.string("name") == "cache" })
        #expect(mount.string("mountPath") == cacheDirectory && mount.string("readOnly") == "true", "\(mount)")
        let claim = spec.objects("volumes").first { $0.string("name") == "cache" }?.string("persistentVolumeClaim.claimName")
        #expect(claim == worker.objects("spec.template.spec.volumes").first { $0.string("name") == "cache" }?.string("persistentVolumeClaim.claimName"))

        // kubectl apply -k applies it
        let kustomization = try #require(try DeployFiles.documents(DeployFiles.folder.appendingPathComponent("kubernetes/kustomization.yaml")).first as? [String: Any])
        #expect(kustomization.list("resources").map(DeployFiles.scalar).contains("serve.yaml"))
    }

    @Test func everySupervisorStopsTheServerWithTheSameTimeout() throws {
        let deployment = try DeployFiles.object(kind: "Deployment", name: "warmer-serve")
        let kubernetes = try #require(deployment.string("spec.template.spec.terminationGracePeriodSeconds").flatMap(Int.init))
        let api = try #require(try DeployFiles.composeServices()["api"])
        let compose = try #require(api.string("stop_grace_period").flatMap { $0.hasSuffix("s") ? Int($0.dropLast()) : nil })
        let unit = try DeployFiles.text("systemd/warmer-serve.service").split(separator: "\n")
        let systemd = try #require(unit.first { $0.hasPrefix("TimeoutStopSec=") }.flatMap { Int($0.dropFirst(15)) })
        #expect(kubernetes == compose && compose == systemd, "kubernetes \(kubernetes) s, compose \(compose) s, systemd \(systemd) s")
        // The preStop pause fits in the pod's grace period, with time left to stop
        let pause = deployment.objects("spec.template.spec.containers").first?.list("lifecycle.preStop.exec.command").map(DeployFiles.scalar)
        if let seconds = pause?.last.flatMap(Int.init) { #expect(seconds < kubernetes, "preStop \(seconds) s vs \(kubernetes) s") }

        // Compose: the container listens on the published port, which the host exposes on loopback only
        let arguments = try #require(try DeployFiles.serveCommandLines().first { $0.file == "compose.yaml" }?.arguments)
        let published = api.list("ports").map(DeployFiles.scalar)
        #expect(published == ["127.0.0.1:8080:\(DeployFiles.value(of: "--http-port", in: arguments) ?? "?")"], "\(published)")
        #expect((api.value("depends_on") as? [String: Any])?["redis"] != nil)

        // systemd: serve sends no sd_notify (Type=exec), its tokens come from a file, it is hardened like the worker
        #expect(unit.contains("Type=exec"))
        #expect(unit.contains("EnvironmentFile=/etc/warmer/serve.env"))
        let workerUnit = try DeployFiles.text("systemd/warmer-worker@.service").split(separator: "\n")
        for line in ["DynamicUser=yes", "User=warmer", "CacheDirectory=warmer", "NoNewPrivileges=yes", "ProtectSystem=strict",
                     "ProtectHome=yes", "PrivateTmp=yes"] {
            #expect(workerUnit.contains(Substring(line)) && unit.contains(Substring(line)), "\(line) in both units")
        }
    }

    @Test func aRealServerStartedAsTheDeploymentDoesAnswersItsProbes() async throws {
        let container = try serveContainer()
        var arguments = try #require(try DeployFiles.serveCommandLines().first { $0.file == "kubernetes" }?.arguments)
        let paths = [container.string("livenessProbe.httpGet.path"), container.string("readinessProbe.httpGet.path")].compactMap { $0 }
        #expect(paths == ["/healthz", "/readyz"])

        // Every example token in deploy/, in the scope it is given (the server refuses a malformed one at start)
        let secret = try DeployFiles.object(kind: "Secret", name: "warmer-serve")
        let api = try #require(try DeployFiles.composeServices()["api"])
        let file = try DeployFiles.environmentAssignments("systemd/warmer-serve.env")
        let read = [secret.string("stringData.read-tokens"), api.string("environment.WARMER_READ_TOKENS"), file["WARMER_READ_TOKENS"]]
        let admin = [secret.string("stringData.admin-tokens"), api.string("environment.WARMER_ADMIN_TOKENS"), file["WARMER_ADMIN_TOKENS"]]
        let readTokens = read.compactMap { $0 }.joined(separator: ","), adminTokens = admin.compactMap { $0 }.joined(separator: ",")
        #expect(read.allSatisfy { $0 != nil } && admin.allSatisfy { $0 != nil })

        // The Deployment's own arguments, on loopback and a free port here
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let port = try freeLoopbackPort()
        for (flag, value) in [("--http-host", "127.0.0.1"), ("--http-port", String(port))] {
            let index = try #require(arguments.firstIndex(of: flag))
            arguments[index + 1] = value
        }
        let server = try CollectedProcess(["serve"] + arguments + queue.redisArguments + ["--cache-dir", cache.path], environment: [
            "WARMER_READ_TOKENS": readTokens, "WARMER_ADMIN_TOKENS": adminTokens,
        ])
        defer { if server.isRunning { server.send(SIGKILL) } }
        for path in paths {
            let answered = try await eventuallyValue { () async throws -> (status: Int, body: String)? in
                guard server.isRunning else { return (0, "") }
                let response = try await httpGet("http://127.0.0.1:\(port)\(path)")
                return response.status == 200 ? response : nil
            }
            try #require(answered?.status == 200, "GET \(path) should answer 200:\n\(server.standardErrorSoFar)")
        }
        // The tokens are in force: none is refused, each example one reads
        let queuePath = "/v1/queues/\(queue.name)"
        #expect(try await httpGet("http://127.0.0.1:\(port)\(queuePath)").status == 401)
        for token in (readTokens + "," + adminTokens).split(separator: ",") {
            let answer = try await httpGet("http://127.0.0.1:\(port)\(queuePath)", headers: ["Authorization: Bearer \(token)"])
            #expect(answer.status == 200, "token \(token): \(answer)")
        }

        // SIGTERM stops it cleanly within the supervisors' stop timeout
        let timeout = try #require(try DeployFiles.object(kind: "Deployment", name: "warmer-serve")
            .string("spec.template.spec.terminationGracePeriodSeconds").flatMap(Int.init))
        server.send(SIGTERM)
        let exit = await server.waitForExit(timeout: .seconds(timeout))
        #expect(exit?.exited == true && exit?.status == 0, "\(exit.map { "\($0)" } ?? "still running after \(timeout) s")")
    }

    /// A YAML value as text with its mappings' keys sorted, to compare two.
    private func canonical(_ value: Any?) -> String {
        if let mapping = value as? [AnyHashable: Any] {
            let entries = mapping.map { ("\($0.key)", canonical($0.value)) }.sorted { $0.0 < $1.0 }
            return "{" + entries.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}"
        }
        if let list = value as? [Any] { return "[" + list.map(canonical).joined(separator: ", ") + "]" }
        return value.map(DeployFiles.scalar) ?? "nil"
    }

    /// The serve Deployment's container.
    private func serveContainer() throws -> [String: Any] {
        let deployment = try DeployFiles.object(kind: "Deployment", name: "warmer-serve")
        return try #require(deployment.objects("spec.template.spec.containers").first)
    }
}
