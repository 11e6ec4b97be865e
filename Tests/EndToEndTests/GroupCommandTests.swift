import Foundation
import Scheduler
import Testing
import TestSupport

/// `warmer group`: a group's weight and in-flight limit, shown and set
/// through the real binary, and what Redis and the claims make of them.
@Suite
struct GroupCommandTests {
    @Test func aGroupsWeightAndLimitAreSetOneAtATimeShownAndReset() async throws {
        // Given a tenant's batch of 4 jobs in a queue of its own
        let queue = try QueueProbe()
        _ = try await queue.queue.enqueue(urls: (0..<4).map { "https://images.example/t-\($0).jpg" }, group: "tenant")
        // When its weight is set, then its limit
        let weight = try await warmer(["group"] + queue.redisArguments + ["tenant", "--weight", "3"])
        #expect(weight.status == 0 && weight.standardOutput == "group tenant: weight 3, no limit, 4 queued, 0 running\n", "\(weight)")
        let limit = try await warmer(["group"] + queue.redisArguments + ["tenant", "--limit", "2"])
        // Then each change keeps the other setting, and Redis holds both
        #expect(limit.status == 0 && limit.standardOutput == "group tenant: weight 3, limit 2 in flight, 4 queued, 0 running\n", "\(limit)")
        #expect(try await queue.send(["HGET", queue.queue.keys.groupWeights, "tenant"]).string == "3")
        #expect(try await queue.send(["HGET", queue.queue.keys.groupLimits, "tenant"]).string == "2")
        // And the limit holds: at most 2 of its jobs run
        #expect(try await queue.queue.claim(upTo: 4, worker: "probe").count == 2)
        let shown = try await warmer(["group"] + queue.redisArguments + ["tenant", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.standardOutput.utf8)) as? [String: Any], "\(shown)")
        #expect(object["weight"] as? Int == 3 && object["maxInFlight"] as? Int == 2, "\(object)")
        #expect(object["queued"] as? Int == 2 && object["running"] as? Int == 2, "\(object)")
        // When the limit is lifted, the rest can be claimed
        let lifted = try await warmer(["group"] + queue.redisArguments + ["tenant", "--no-limit"])
        #expect(lifted.standardOutput == "group tenant: weight 3, no limit, 2 queued, 2 running\n", "\(lifted)")
        #expect(try await queue.queue.claim(upTo: 4, worker: "probe").count == 2)
        // And --reset brings back weight 1 and no limit, with nothing left in Redis
        let reset = try await warmer(["group"] + queue.redisArguments + ["tenant", "--limit", "0"])
        #expect(reset.status == 0, "\(reset)")
        let back = try await warmer(["group"] + queue.redisArguments + ["tenant", "--reset"])
        #expect(back.standardOutput == "group tenant: weight 1, no limit, 0 queued, 4 running\n", "\(back)")
        #expect(try await queue.send(["HEXISTS", queue.queue.keys.groupWeights, "tenant"]).integer == 0)
        #expect(try await queue.send(["HEXISTS", queue.queue.keys.groupLimits, "tenant"]).integer == 0)
    }

    @Test(arguments: [
        (["bad name"], "the group must be"), (["g", "--weight", "0"], "--weight must be 1-1000"),
        (["g", "--weight", "1001"], "--weight must be 1-1000"), (["g", "--limit", "-1"], "--limit must be 0 or more"),
        (["g", "--limit", "2", "--no-limit"], "not both"), (["g", "--reset", "--weight", "2"], "--reset takes no other setting"),
    ])
    func invalidGroupsAndSettingsAreRefusedWithoutWriting(arguments: [String], message: String) async throws {
        let queue = try QueueProbe()
        let result = try await warmer(["group"] + queue.redisArguments + arguments)
        #expect(result.status == 64 && result.standardError.contains(message), "\(result)")
        #expect(try await queue.send(["EXISTS", queue.queue.keys.groupWeights, queue.queue.keys.groupLimits]).integer == 0)
    }
}
