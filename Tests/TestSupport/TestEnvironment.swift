import Foundation

/// The real services the tests run against, started by `scripts/test.sh`
/// (`make test`) and described by environment variables.
///
/// A missing variable fails the test with an explanation: these tests never
/// skip silently.
public enum TestEnvironment {
    /// Thrown when the suite runs without the services of `make test`.
    public struct MissingService: Error, CustomStringConvertible {
        public let variable: String
        public var description: String {
            "\(variable) is not set: run the suite with `make test` (scripts/test.sh), which starts redis-server, the nginx origin, the fault origin and the contract checker"
        }
    }

    static func value(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw MissingService(variable: name)
        }
        return value
    }

    /// `redis://127.0.0.1:PORT` of the test redis-server.
    public static func redisURL() throws -> String { try value("WARMER_TEST_REDIS_URL") }

    /// The nginx origin: `http://127.0.0.1:PORT`. `/slow/NAME` serves `NAME` at 100 KB/s.
    public static func originURL() throws -> URL {
        guard let url = URL(string: try value("WARMER_TEST_ORIGIN")) else { throw MissingService(variable: "WARMER_TEST_ORIGIN") }
        return url
    }

    /// The folder the origin serves; tests add their own files to it.
    public static func originRoot() throws -> URL {
        URL(fileURLWithPath: try value("WARMER_TEST_ORIGIN_ROOT"), isDirectory: true)
    }

    /// nginx's access log: `METHOD URI STATUS BYTES "RANGE" "IF-RANGE"` per request.
    public static func originLog() throws -> URL {
        URL(fileURLWithPath: try value("WARMER_TEST_ORIGIN_LOG"))
    }

    /// The fault-injecting origin (`scripts/fault-origin.py`): `http://127.0.0.1:PORT`.
    /// `/files/NAME?OPTIONS` serves `NAME` from the same folder as the nginx
    /// origin (`originRoot()`); build its URLs with `FaultOrigin`.
    public static func faultOriginURL() throws -> URL {
        guard let url = URL(string: try value("WARMER_TEST_FAULT_ORIGIN")) else {
            throw MissingService(variable: "WARMER_TEST_FAULT_ORIGIN")
        }
        return url
    }

    /// The fault origin's request log: one JSON object per request (see `FaultOrigin.Request`).
    public static func faultOriginLog() throws -> URL {
        URL(fileURLWithPath: try value("WARMER_TEST_FAULT_ORIGIN_LOG"))
    }

    /// The contract checker (`scripts/openapi-check.py --serve`): `http://127.0.0.1:PORT`.
    /// `POST /check` with recorded exchanges, one JSON object a line, answers
    /// the lines of those whose response is off docs/openapi.yaml (empty: all conform).
    public static func contractCheckerURL() throws -> URL {
        guard let url = URL(string: try value("WARMER_TEST_CONTRACT_CHECKER")) else {
            throw MissingService(variable: "WARMER_TEST_CONTRACT_CHECKER")
        }
        return url
    }

    /// A fresh, empty temporary folder.
    public static func temporaryDirectory(_ label: String = "warmer-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A name no other test uses, for queues, batches and files.
    public static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

extension TestEnvironment {
    /// The repository's root folder (for its scripts and docs).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
