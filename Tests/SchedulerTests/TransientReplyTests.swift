import RedisKit
import Testing
@testable import Scheduler

/// Which failures are worth trying again: error replies that mean "not now"
/// and lost connections, but not real errors.
@Suite("Transient Redis replies")
struct TransientReplyTests {
    @Test(arguments: [
        "LOADING Redis is loading the dataset in memory",
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
        "TRYAGAIN Multiple keys request during rehashing of slot",
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
    ])
    func notNowRepliesAreTransientAndLeftTheCommandUndone(reply: String) {
        let error = RedisError.server(reply)
        #expect(error.isTransient)
        #expect(error.didNotRun)
        #expect(SchedulerError.redis(error).isTransient)
        #expect(SchedulerError.redis(error).didNotRun)
    }

    @Test(arguments: [
        "ERR unknown command 'FOO'",
        "BUSYGROUP Consumer Group name already exists",
        "BUSYKEY Target key name already exists.",
        "WRONGTYPE Operation against a key holding the wrong kind of value",
        "NOSCRIPT No matching script. Please use EVAL.",
        "LEASE_LOST job 1 is leased to another worker",
        "LOADINGX not a real code",
        "",
    ])
    func otherErrorRepliesAreFinal(reply: String) {
        #expect(!RedisError.server(reply).isTransient)
        #expect(!RedisError.server(reply).didNotRun)
    }

    @Test func connectionFailuresAreTransientButOnlyAFailedConnectLeftTheCommandUndone() {
        #expect(RedisError.unreachable("127.0.0.1:1: Connection refused").isTransient)
        #expect(RedisError.unreachable("127.0.0.1:1: Connection refused").didNotRun)
        #expect(RedisError.connection("Connection reset by peer").isTransient)
        #expect(!RedisError.connection("Connection reset by peer").didNotRun)
        #expect(!RedisError.unexpectedReply("x").isTransient)
        #expect(!SchedulerError.batchNotFound("b").isTransient)
        #expect(!SchedulerError.leaseLost(jobID: "1").isTransient)
    }
}
