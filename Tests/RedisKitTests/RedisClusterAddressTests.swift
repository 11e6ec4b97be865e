import Testing
@testable import RedisKit

/// The Redis Cluster texts the client reads: redirect replies and seed-node
/// lists in a URL. (Following redirects on a real cluster is tested by
/// WarmerTests' RedisClusterTests.)
struct RedisClusterAddressTests {
    private let answering = RedisEndpoint(host: "127.0.0.9", port: 7000)

    @Test(arguments: [
        ("MOVED 5718 127.0.0.1:7002", RedisRedirect.Kind.moved, 5718, RedisEndpoint(host: "127.0.0.1", port: 7002)),
        ("ASK 0 127.1.2.3:30001", .ask, 0, RedisEndpoint(host: "127.1.2.3", port: 30001)),
        ("MOVED 16383 redis-2.internal:6379", .moved, 16383, RedisEndpoint(host: "redis-2.internal", port: 6379)),
        ("MOVED 3999 ::1:7001", .moved, 3999, RedisEndpoint(host: "::1", port: 7001)),
        ("ASK 3999 [::1]:7001", .ask, 3999, RedisEndpoint(host: "::1", port: 7001)),
        // A node that does not know its address leaves the host out: the answering node's host is meant.
        ("MOVED 3999 :7001", .moved, 3999, RedisEndpoint(host: "127.0.0.9", port: 7001)),
        ("MOVED 3999 ?:7001", .moved, 3999, RedisEndpoint(host: "127.0.0.9", port: 7001)),
    ])
    func parsesRedirectReplies(_ text: String, _ kind: RedisRedirect.Kind, _ slot: Int, _ target: RedisEndpoint) throws {
        let redirect = try #require(RedisRedirect(.error(text), from: answering))
        #expect(redirect.kind == kind && redirect.slot == slot && redirect.target == target)
    }

    @Test(arguments: [
        "MOVED", "MOVED 5718", "MOVED 16384 127.0.0.1:7002", "MOVED -1 127.0.0.1:7002", "MOVED 5718 127.0.0.1",
        "MOVED 5718 127.0.0.1:0", "MOVEDX 5718 127.0.0.1:7002", "ASKING 1 h:1", "TRYAGAIN Multiple keys request during rehashing of slot",
        "ERR unknown command", "CLUSTERDOWN The cluster is down",
    ])
    func otherErrorRepliesAreNotRedirects(_ text: String) {
        #expect(RedisRedirect(.error(text), from: answering) == nil)
    }

    @Test func onlyErrorRepliesAreRedirects() {
        #expect(RedisRedirect(.string("MOVED 5718 127.0.0.1:7002"), from: answering) == nil)
    }

    @Test func aURLNamesSeedNodesAfterTheFirst() throws {
        let url = try RedisURL(parsing: "redis://worker:p%40ss@127.0.0.5:7000,127.0.0.6:7001,[::1]:7002,node-4/0")
        #expect(url.host == "127.0.0.5" && url.port == 7000 && url.username == "worker" && url.password == "p@ss")
        #expect(url.nodes == [
            RedisEndpoint(host: "127.0.0.5", port: 7000), RedisEndpoint(host: "127.0.0.6", port: 7001),
            RedisEndpoint(host: "::1", port: 7002), RedisEndpoint(host: "node-4", port: 6379),
        ])
        #expect(url.description == "redis://worker:***@127.0.0.5:7000,127.0.0.6:7001,[::1]:7002,node-4:6379")
    }

    @Test func aURLWithOneNodeHasNoOtherSeeds() throws {
        let url = try RedisURL(parsing: "redis://127.0.0.1:6390/2")
        #expect(url.nodes == [RedisEndpoint(host: "127.0.0.1", port: 6390)] && url.database == 2)
    }

    @Test(arguments: ["redis://a:1,", "redis://a:1,,b:2", "redis://a:1,b:99999", "redis://a:1,b:2/x/y"])
    func rejectsMalformedSeedLists(_ text: String) {
        #expect(throws: RedisError.invalidURL(text)) { try RedisURL(parsing: text) }
    }

    @Test func redirectsThatOutlastTheirLimitAreTransient() {
        #expect(RedisError.server("MOVED 5718 127.0.0.1:7002").isTransient)
        #expect(RedisError.server("ASK 5718 127.0.0.1:7002").didNotRun)
        #expect(RedisError.server("CLUSTERDOWN The cluster is down").isTransient)
    }
}
